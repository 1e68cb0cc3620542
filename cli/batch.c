/* Batch runs (see batch.h): which paths are histories, one child process
 * per history (its result comes back through a pipe as one record), and
 * the results printed in order as they arrive. */
#include "cli/batch.h"

#include "core/vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Which files are histories ---- */

typedef struct pathvec {
    char **v;
    size_t n, cap;
} pathvec;

static bool push_path(pathvec *pv, const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p || !psi_grow((void **)&pv->v, &pv->cap, pv->n + 1, sizeof *pv->v)) {
        free(p);
        return false;
    }
    if (*name)
        snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    else
        snprintf(p, n, "%s", dir);
    pv->v[pv->n++] = p;
    return true;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Files a recursive walk takes for histories: the formats' usual names.
 * (A directory of T<n>.log files is a Cobra history.) */
static bool history_name(const char *name)
{
    static const char *const ext[] = {".txt", ".edn", ".bincode", ".json", ".jsonl"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (has_suffix(name, ext[i]))
            return true;
    return false;
}

static bool cobra_log_name(const char *name)
{
    if (name[0] != 'T' || !has_suffix(name, ".log"))
        return false;
    const char *p = name + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    return p > name + 1 && strcmp(p, ".log") == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks dir in name order: a directory holding Cobra logs is one history;
 * others are walked; files with a history's name are taken. Symbolic links
 * to directories are not followed (no cycles). */
static bool walk(const char *dir, pathvec *out, int depth)
{
    DIR *dh = opendir(dir);
    if (!dh) {
        fprintf(stderr, "polysi-solve: %s: cannot open directory: %s\n", dir, strerror(errno));
        return false;
    }
    pathvec names = {0};
    bool ok = true, cobra = false;
    struct dirent *e;
    while ((e = readdir(dh)) && ok) {
        if (e->d_name[0] == '.')
            continue;
        cobra |= cobra_log_name(e->d_name);
        ok = push_path(&names, e->d_name, "");
    }
    closedir(dh);
    if (ok && cobra) {
        ok = push_path(out, dir, "");
    } else if (ok) {
        if (names.n)
            qsort(names.v, names.n, sizeof *names.v, cmp_str);
        for (size_t i = 0; i < names.n && ok; i++) {
            size_t n = strlen(dir) + strlen(names.v[i]) + 2;
            char *p = malloc(n);
            if (!p) {
                ok = false;
                break;
            }
            snprintf(p, n, "%s%s%s", dir, has_suffix(dir, "/") ? "" : "/", names.v[i]);
            struct stat sb;
            if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && depth < 64)
                ok = walk(p, out, depth + 1);
            else if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && history_name(names.v[i]))
                ok = push_path(out, p, "");
            free(p);
        }
    }
    for (size_t i = 0; i < names.n; i++)
        free(names.v[i]);
    free(names.v);
    return ok;
}

bool psi_batch_collect(const psi_check_cli *c, psi_batch *b)
{
    memset(b, 0, sizeof *b);
    pathvec pv = {0};
    bool ok = true;
    for (size_t i = 0; i < c->n_paths && ok; i++) {
        struct stat sb;
        const char *p = c->paths[i];
        if (c->recursive && strcmp(p, "-") != 0 && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            size_t before = pv.n;
            ok = walk(p, &pv, 0);
            if (ok && pv.n == before)
                fprintf(stderr,
                        "polysi-solve: %s: no history below it (files named *.txt, "
                        "*.edn, *.bincode, *.json, or directories of T<n>.log)\n",
                        p);
        } else {
            /* Named explicitly: a history whatever its name (errors, such
             * as a missing file, are reported in its line). */
            ok = push_path(&pv, p, "");
        }
    }
    if (ok && pv.n == 0) {
        fprintf(stderr, "polysi-solve check: no history to check\n");
        ok = false;
    }
    if (ok && !(b->items = calloc(pv.n, sizeof *b->items))) {
        fprintf(stderr, "polysi-solve: out of memory\n");
        ok = false;
    }
    b->paths = pv.v;
    b->n = pv.n;
    if (!ok)
        psi_batch_free(b);
    return ok;
}

void psi_batch_free(psi_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->paths[i]);
        if (b->items) {
            psi_summary_free(&b->items[i].s);
            free(b->items[i].report);
            free(b->items[i].html);
        }
    }
    free(b->paths);
    free(b->items);
    memset(b, 0, sizeof *b);
}

/* ---- One history in a child process ----
 * The child sends one record: a fixed part, then the strings it counts. */

typedef struct wire {
    uint32_t magic;
    uint32_t format, ser, level, outcome, reason, named, kind, n_anomalies;
    uint32_t sessions, transactions, committed;
    uint32_t error_stage, error_status, error_where;
    double seconds[PSI_STAGE_COUNT], wall;
    uint64_t operations, constraints_before, constraints_after, conflicts, peak_bytes;
    uint64_t error_line, error_col, error_offset;
    uint64_t len[5]; /* summary, error, error file, report, HTML fragment */
} wire;

enum { WIRE_MAGIC = 0x50534942 };

static bool write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static void send_record(int fd, const psi_summary *s, const char *report, size_t report_len,
                        const char *html)
{
    wire w = {.magic = WIRE_MAGIC,
              .format = (uint32_t)s->format,
              .ser = s->ser,
              .level = (uint32_t)s->level,
              .outcome = (uint32_t)s->outcome,
              .reason = (uint32_t)s->reason,
              .named = s->named,
              .kind = (uint32_t)s->kind,
              .n_anomalies = s->n_anomalies,
              .sessions = s->sessions,
              .transactions = s->transactions,
              .committed = s->committed,
              .error_stage = (uint32_t)s->error_stage,
              .error_status = (uint32_t)s->error_status,
              .error_where = s->error_where,
              .wall = s->wall,
              .operations = s->operations,
              .constraints_before = s->constraints_before,
              .constraints_after = s->constraints_after,
              .conflicts = s->conflicts,
              .peak_bytes = s->peak_bytes,
              .error_line = s->error_line,
              .error_col = s->error_col,
              .error_offset = s->error_offset};
    memcpy(w.seconds, s->seconds, sizeof w.seconds);
    const char *str[5] = {s->summary, s->error, s->error_file, report, html};
    for (int i = 0; i < 5; i++)
        w.len[i] = str[i] ? strlen(str[i]) : 0;
    w.len[3] = report ? report_len : 0;
    bool ok = write_all(fd, &w, sizeof w);
    for (int i = 0; i < 5 && ok; i++)
        ok = write_all(fd, str[i] ? str[i] : "", w.len[i]);
}

/* The record's report: the JSON report, or the error object. */
static void send_with_json(int fd, const psi_check_cli *c, const psi_summary *s, const char *report,
                           size_t len, const char *html)
{
    char *err = NULL;
    size_t n = 0;
    if (c->json && s->outcome == PSI_OUTCOME_ERROR) {
        FILE *m = open_memstream(&err, &n);
        if (m) {
            (void)psi_render_error_json(s, true, m);
            fclose(m);
        }
        report = err;
        len = n;
    }
    while (report && len && report[len - 1] == '\n')
        len--;
    send_record(fd, s, report, len, html);
    free(err);
}

typedef struct child_ctx {
    int fd;
    const psi_check_cli *c;
} child_ctx;

/* The watchdog ends the child: its error still reaches the parent. */
static void child_limit(void *ctx, const psi_summary *s)
{
    const child_ctx *cc = ctx;
    send_with_json(cc->fd, cc->c, s, NULL, 0, NULL);
}

static void child_main(const psi_check_cli *c, const char *path, size_t item, int fd)
{
    char *report = NULL, *html = NULL;
    size_t len = 0;
    FILE *m = c->json ? open_memstream(&report, &len) : NULL;
    child_ctx cc = {.fd = fd, .c = c};
    char html_id[32];
    snprintf(html_id, sizeof html_id, "cx%zu", item + 1);
    psi_run_io io = {.report = m,
                     .on_limit = child_limit,
                     .limit_ctx = &cc,
                     .html = c->html_path ? &html : NULL,
                     .html_id = html_id};
    psi_summary s;
    int rc = psi_check_run(c, path, &io, &s);
    if (m)
        fclose(m);
    send_with_json(fd, c, &s, report, len, html);
    free(report);
    free(html);
    psi_summary_free(&s);
    close(fd);
    /* _exit: the parent's stdio buffers (flushed before the fork) and its
     * allocations are not this process's to flush or report. */
    _exit(rc);
}

/* ---- The parent ---- */

typedef struct slot {
    pid_t pid;
    int fd;
    size_t item;
    char *buf;
    size_t n, cap;
} slot;

/* Turns the record in buf into the item's summary and report; false when
 * it is incomplete (the child died before sending it all). */
static bool take_record(psi_batch_item *it, const slot *sl)
{
    wire w;
    if (sl->n < sizeof w)
        return false;
    memcpy(&w, sl->buf, sizeof w);
    uint64_t need = sizeof w;
    for (int i = 0; i < 5; i++)
        need += w.len[i];
    if (w.magic != WIRE_MAGIC || need != sl->n)
        return false;
    psi_summary *s = &it->s;
    s->format = (psi_format)w.format;
    s->ser = w.ser;
    s->level = w.level <= PSI_LEVEL_LAST ? (psi_level)w.level : PSI_LEVEL_SI;
    s->outcome = (psi_outcome)w.outcome;
    s->reason = (psi_reject_reason)w.reason;
    s->named = w.named;
    s->kind = (psi_cex_kind)w.kind;
    s->n_anomalies = w.n_anomalies;
    s->sessions = w.sessions;
    s->transactions = w.transactions;
    s->committed = w.committed;
    s->error_stage = (psi_stage)w.error_stage;
    s->error_status = (psi_status)w.error_status;
    s->error_where = (uint8_t)w.error_where;
    memcpy(s->seconds, w.seconds, sizeof s->seconds);
    s->wall = w.wall;
    s->operations = w.operations;
    s->constraints_before = w.constraints_before;
    s->constraints_after = w.constraints_after;
    s->conflicts = w.conflicts;
    s->peak_bytes = w.peak_bytes;
    s->error_line = w.error_line;
    s->error_col = w.error_col;
    s->error_offset = w.error_offset;
    const char *p = sl->buf + sizeof w;
    char **dst[5] = {&s->summary, &s->error, &s->error_file, &it->report, &it->html};
    for (int i = 0; i < 5; i++) {
        free(*dst[i]);
        *dst[i] = NULL;
        if (w.len[i] || i == 3)
            *dst[i] = strndup(p, w.len[i]);
        p += w.len[i];
    }
    return true;
}

/* A child that sent no complete record: say how it ended. */
static void lost_child(const psi_check_cli *c, psi_batch_item *it, int status)
{
    psi_diag d;
    if (WIFSIGNALED(status))
        psi_diag_set(&d, PSI_ERR_LIMIT, "the checker was killed by signal %d (%s)%s",
                     WTERMSIG(status), strsignal(WTERMSIG(status)),
                     WTERMSIG(status) == SIGKILL ? "; the system may have run out of memory" : "");
    else
        psi_diag_set(&d, PSI_ERR_IO, "the checker exited with code %d without a result",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    (void)psi_summary_set_error(&it->s, PSI_STAGE_LOAD, &d, NULL);
    free(it->report);
    it->report = NULL;
    if (c->json) {
        char *err = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&err, &n);
        if (m) {
            (void)psi_render_error_json(&it->s, true, m);
            fclose(m);
            while (n && err[n - 1] == '\n')
                err[--n] = '\0';
            it->report = err;
        }
    }
}

static bool spawn(const psi_check_cli *c, psi_batch *b, size_t item, slot *sl)
{
    int p[2];
    if (pipe(p) != 0)
        return false;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return false;
    }
    if (pid == 0) {
        close(p[0]);
        child_main(c, b->paths[item], item, p[1]);
    }
    close(p[1]);
    (void)fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    *sl = (slot){.pid = pid, .fd = p[0], .item = item};
    return true;
}

/* Reads what the child sent so far (the pipe does not block); true at the
 * end of its output. */
static bool drain(slot *sl)
{
    for (;;) {
        if (!psi_grow((void **)&sl->buf, &sl->cap, sl->n + 65536, 1))
            return true; /* out of memory: the record is incomplete */
        ssize_t k = read(sl->fd, sl->buf + sl->n, sl->cap - sl->n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false;
        if (k <= 0)
            return true;
        sl->n += (size_t)k;
    }
}

static void print_item(const psi_check_cli *c, const psi_batch *b, size_t i)
{
    const psi_batch_item *it = &b->items[i];
    if (c->json)
        printf("%s  %s", i ? ",\n" : "[\n", it->report ? it->report : "null");
    else
        (void)psi_render_summary_line(&it->s, c->stats, stdout);
    fflush(stdout);
}

static void print_summary(const psi_check_cli *c, const psi_batch *b)
{
    if (c->json) {
        printf("\n]\n");
        return;
    }
    printf("checked %zu histor%s in %.3f s (%u job%s): %zu accepted, %zu rejected, %zu error%s",
           b->n, b->n == 1 ? "y" : "ies", b->wall, c->jobs, c->jobs == 1 ? "" : "s", b->accepted,
           b->rejected, b->errors, b->errors == 1 ? "" : "s");
    /* The anomalies named, by name. */
    bool first = true;
    for (int k = 0; k <= PSI_CEX_KIND_LAST; k++) {
        size_t n = 0;
        for (size_t i = 0; i < b->n; i++)
            n += b->items[i].s.outcome == PSI_OUTCOME_REJECT && b->items[i].s.named &&
                 b->items[i].s.kind == (psi_cex_kind)k;
        if (n)
            printf("%s%s %zu", first ? " (" : ", ", psi_cex_kind_name((psi_cex_kind)k), n);
        first &= !n;
    }
    printf("%s\n", first ? "" : ")");
}

int psi_batch_run(const psi_check_cli *c, psi_batch *b, psi_progress_line *progress)
{
    double t0 = psi_now();
    uint32_t jobs = c->jobs ? c->jobs : 1;
    slot *slots = calloc(jobs, sizeof *slots);
    struct pollfd *pfd = calloc(jobs, sizeof *pfd);
    if (!slots || !pfd) {
        fprintf(stderr, "polysi-solve: out of memory\n");
        free(slots);
        free(pfd);
        return 2;
    }
    size_t next = 0, printed = 0, running = 0, done = 0;
    bool spawn_failed = false;
    while (printed < b->n) {
        while (running < jobs && next < b->n && !spawn_failed) {
            size_t k = 0;
            while (slots[k].pid)
                k++;
            if (!spawn(c, b, next, &slots[k])) {
                fprintf(stderr, "polysi-solve: cannot start a check: %s\n", strerror(errno));
                spawn_failed = true;
                break;
            }
            psi_progress_line_batch(progress, done, b->n, running + 1, b->paths[next]);
            next++;
            running++;
        }
        if (spawn_failed && running == 0)
            break;
        size_t np = 0;
        for (size_t k = 0; k < jobs; k++)
            if (slots[k].pid)
                pfd[np++] = (struct pollfd){.fd = slots[k].fd, .events = POLLIN};
        if (np && poll(pfd, np, 200) < 0 && errno != EINTR)
            break;
        for (size_t k = 0; k < jobs; k++) {
            slot *sl = &slots[k];
            if (!sl->pid)
                continue;
            bool ready = false;
            for (size_t j = 0; j < np; j++)
                ready |= pfd[j].fd == sl->fd && pfd[j].revents;
            if (!ready || !drain(sl))
                continue;
            int status = 0;
            while (waitpid(sl->pid, &status, 0) < 0 && errno == EINTR)
                ;
            psi_batch_item *it = &b->items[sl->item];
            if (!psi_summary_init(&it->s, b->paths[sl->item], c->co.ser) ||
                !(it->s.level = c->co.level, take_record(it, sl)))
                lost_child(c, it, status);
            it->done = true;
            close(sl->fd);
            free(sl->buf);
            *sl = (slot){0};
            running--;
            done++;
            psi_progress_line_batch(progress, done, b->n, running, NULL);
        }
        while (printed < b->n && b->items[printed].done) {
            const psi_summary *s = &b->items[printed].s;
            b->accepted += s->outcome == PSI_OUTCOME_ACCEPT;
            b->rejected += s->outcome == PSI_OUTCOME_REJECT;
            b->errors += s->outcome == PSI_OUTCOME_ERROR;
            psi_progress_line_erase(progress);
            print_item(c, b, printed++);
        }
    }
    free(slots);
    free(pfd);
    b->wall = psi_now() - t0;
    psi_progress_line_erase(progress);
    if (printed < b->n)
        return 2;
    print_summary(c, b);
    return b->errors ? 2 : b->rejected ? 1 : 0;
}
