/* Prefetch hints for passes that walk scattered memory (check/'s
 * polygraph-free passes): PSI_PREFETCH(p) for a read, PSI_PREFETCH_W(p)
 * for a write. A hint only: no effect on results, and nothing where the
 * compiler has no such builtin. */
#ifndef PSI_CORE_PREFETCH_H
#define PSI_CORE_PREFETCH_H

#if defined(__GNUC__) || defined(__clang__)
#define PSI_PREFETCH(p)   __builtin_prefetch(p)
#define PSI_PREFETCH_W(p) __builtin_prefetch(p, 1)
#else
#define PSI_PREFETCH(p)   ((void)(p))
#define PSI_PREFETCH_W(p) ((void)(p))
#endif

#endif
