/* Static symmetry breaking for matrix-shaped formulas (pigeonhole-like:
 * interchangeable rows such as pigeons or vertices, interchangeable
 * columns such as holes or colours), as a one-shot preprocessing step at
 * the first solve (opt.symmetry; see psi_symmetry_break in internal.h).
 *
 * Detection: the rows are the largest family of variable-disjoint positive
 * clauses of one length m (a pigeon's "in some hole", a vertex's "some
 * colour"); row i's k-th smallest variable is M[i][k]. Candidate
 * symmetries are the swaps of two adjacent rows and of two adjacent
 * columns. Each candidate is verified, never assumed: it must map every
 * clause containing a moved variable onto a clause of the formula (sets of
 * sorted literals, looked up in a hash table) and keep root values.
 *
 * When only the column swaps all hold (a colouring's colours), the
 * colours of a clique of rows are fixed instead (fix_clique, with
 * opt.symmetry_clique). Lex-leader breaking, only when every swap holds
 * (the full row and column symmetry group of a pigeonhole-like formula): for each swap sigma, the
 * lex-leader constraint "alpha <=lex sigma(alpha)" under one fixed
 * variable order (the matrix row by row, then everything else). For a row
 * swap (i, i+1) it says row i <=lex row i+1; for a column swap (k, k+1),
 * column k <=lex column k+1 read top down. The lexicographically least
 * assignment of any model's orbit under the group the swaps generate
 * satisfies every such constraint, so they keep satisfiability in both
 * directions and a model found is one of the original formula (Crawford,
 * Ginsberg, Luks and Roy, KR 1996; Aloul, Markov and Sakallah, "Efficient
 * symmetry breaking for Boolean satisfiability", IJCAI 2003, for the
 * encoding). Each constraint
 * x <=lex y adds one fresh variable per position: e_j "x and y agree on
 * 0..j", with (~e_{j-1} | ~x_j | y_j), (~e_{j-1} | ~x_j | e_j) and
 * (~e_{j-1} | y_j | e_j).
 *
 * The new clauses (and units) are not implied by the formula, so the solver refuses
 * clauses and assumptions afterwards (sat.c), and a proof cannot contain
 * them: the step is skipped with a proof, a theory or assumptions. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct sym_ctx {
    psi_sat *s;
    size_t ncls;
    size_t *start;    /* clause i's sorted literals: lits[start[i] .. start[i+1]) */
    lit_t *lits;      /* owned */
    uint32_t *occ_at; /* per var + 1: CSR offsets into occ */
    uint32_t *occ;    /* clause indexes containing each var */
    uint32_t *table;  /* open addressing: clause index + 1, 0 empty */
    size_t tmask;     /* table size - 1 (a power of two) */
    uint32_t *perm;   /* per var: its image (identity outside a candidate) */
    lit_t *img;       /* scratch: a clause's image, sorted */
    size_t img_cap;
} sym_ctx;

static int cmp_lit(const void *a, const void *b)
{
    lit_t x = *(const lit_t *)a, y = *(const lit_t *)b;
    return (x > y) - (x < y);
}

static size_t hash_lits(const lit_t *c, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    return (size_t)(h ^ (h >> 29));
}

/* Is the sorted clause c[0..n) one of the formula's? */
static bool has_clause(const sym_ctx *x, const lit_t *c, size_t n)
{
    for (size_t h = hash_lits(c, n) & x->tmask;; h = (h + 1) & x->tmask) {
        uint32_t e = x->table[h];
        if (!e)
            return false;
        const lit_t *d = x->lits + x->start[e - 1];
        if (x->start[e] - x->start[e - 1] == n && !memcmp(d, c, n * sizeof *c))
            return true;
    }
}

/* Copies the live original clauses, sorted, into x; builds the table and
 * the occurrence lists. False on ENOMEM. */
static bool build(sym_ctx *x)
{
    psi_sat *s = x->s;
    size_t total = 0, n = 0;
    for (size_t i = 0; i < s->originals.n; i++) {
        uint32_t c = s->originals.a[i];
        if (!(cl_flags(s, c) & CL_DELETED))
            total += cl_size(s, c), n++;
    }
    x->ncls = n;
    size_t tsize = 16;
    while (tsize < 2 * n)
        tsize *= 2;
    x->tmask = tsize - 1;
    x->start = malloc((n + 1) * sizeof *x->start);
    x->lits = malloc((total + 1) * sizeof *x->lits);
    x->table = calloc(tsize, sizeof *x->table);
    x->occ_at = calloc((size_t)s->nvars + 1, sizeof *x->occ_at);
    x->occ = malloc((total + 1) * sizeof *x->occ);
    x->perm = malloc(((size_t)s->nvars + 1) * sizeof *x->perm);
    if (!x->start || !x->lits || !x->table || !x->occ_at || !x->occ || !x->perm)
        return false;
    size_t k = 0, at = 0;
    for (size_t i = 0; i < s->originals.n; i++) {
        uint32_t c = s->originals.a[i];
        if (cl_flags(s, c) & CL_DELETED)
            continue;
        uint32_t m = cl_size(s, c);
        x->start[k] = at;
        memcpy(x->lits + at, cl_lits(s, c), m * sizeof *x->lits);
        qsort(x->lits + at, m, sizeof *x->lits, cmp_lit);
        for (uint32_t j = 0; j < m; j++)
            x->occ_at[lit_var(x->lits[at + j])]++;
        at += m;
        k++;
    }
    x->start[n] = at;
    /* Counts to offsets (each var's end), then fill backwards. */
    for (uint32_t v = 1; v <= s->nvars; v++)
        x->occ_at[v] += x->occ_at[v - 1];
    for (size_t i = n; i-- > 0;) {
        for (size_t j = x->start[i]; j < x->start[i + 1]; j++)
            x->occ[--x->occ_at[lit_var(x->lits[j])]] = (uint32_t)i;
        size_t h = hash_lits(x->lits + x->start[i], x->start[i + 1] - x->start[i]) & x->tmask;
        while (x->table[h])
            h = (h + 1) & x->tmask;
        x->table[h] = (uint32_t)i + 1;
    }
    for (uint32_t v = 0; v < s->nvars; v++)
        x->perm[v] = v;
    return true;
}

static lit_t map_lit(const sym_ctx *x, lit_t l)
{
    return 2 * x->perm[lit_var(l)] + (l & 1u);
}

/* Does the current permutation, which moves exactly the vars moved[0..n),
 * map the formula (clauses and root values) onto itself? Every clause with
 * a moved var must have its image among the clauses; the others are fixed.
 * Since the permutation is a bijection of a finite set of clauses, mapping
 * into the set is mapping onto it. -1 on ENOMEM. */
static int verify(sym_ctx *x, const uint32_t *moved, size_t n)
{
    psi_sat *s = x->s;
    for (size_t i = 0; i < n; i++)
        if (s->vals[2 * moved[i]] != s->vals[2 * x->perm[moved[i]]])
            return 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = moved[i];
        for (uint32_t o = x->occ_at[v]; o < x->occ_at[v + 1]; o++) {
            uint32_t c = x->occ[o];
            size_t m = x->start[c + 1] - x->start[c];
            if (m > x->img_cap) {
                lit_t *p = realloc(x->img, m * sizeof *p);
                if (!p)
                    return -1;
                x->img = p;
                x->img_cap = m;
            }
            for (size_t j = 0; j < m; j++)
                x->img[j] = map_lit(x, x->lits[x->start[c] + j]);
            qsort(x->img, m, sizeof *x->img, cmp_lit);
            if (!has_clause(x, x->img, m))
                return 0;
        }
    }
    return 1;
}

/* Adds x <=lex y (positive literals as public ints, length n) with fresh
 * variables for "equal so far"; see the file comment. */
static int add_lex(psi_sat *s, const int *xv, const int *yv, size_t n)
{
    int eq = 0; /* 0: the empty prefix, always equal */
    for (size_t j = 0; j < n; j++) {
        int e = 0;
        if (j + 1 < n) {
            e = psi_sat_nvars(s) + 1;
            int rc = psi_sat_reserve(s, e);
            if (rc)
                return rc;
        }
        int c1[3] = {-xv[j], yv[j], -eq}, c2[3] = {-xv[j], e, -eq}, c3[3] = {yv[j], e, -eq};
        size_t k = eq ? 3 : 2;
        int rc = psi_sat_add_clause(s, c1, k);
        if (!rc && e)
            rc = psi_sat_add_clause(s, c2, k);
        if (!rc && e)
            rc = psi_sat_add_clause(s, c3, k);
        if (rc)
            return rc;
        eq = e;
    }
    return 0;
}

static bool positive(const sym_ctx *x, size_t c)
{
    for (size_t j = x->start[c]; j < x->start[c + 1]; j++)
        if (x->lits[j] & 1u)
            return false;
    return x->start[c + 1] - x->start[c] >= 2;
}

/* Rows of width m: the positive clauses of length m that share no variable
 * with an earlier one, in formula order, into rows (if not NULL); returns
 * their number. owner[] is scratch (per var). */
static size_t rows_of(const sym_ctx *x, size_t m, uint32_t *rows, uint32_t *owner)
{
    psi_sat *s = x->s;
    for (uint32_t v = 0; v < s->nvars; v++)
        owner[v] = 0;
    size_t r = 0;
    for (size_t c = 0; c < x->ncls; c++) {
        if (x->start[c + 1] - x->start[c] != m || !positive(x, c))
            continue;
        bool ok = true;
        for (size_t j = x->start[c]; j < x->start[c + 1] && ok; j++)
            ok = !owner[lit_var(x->lits[j])];
        if (!ok)
            continue;
        for (size_t j = x->start[c]; j < x->start[c + 1]; j++)
            owner[lit_var(x->lits[j])] = 1;
        if (rows)
            rows[r] = (uint32_t)c;
        r++;
    }
    return r;
}

/* Picks the rows: among the lengths of positive clauses, the one with the
 * most variable-disjoint clauses (longest on ties). Returns the number of
 * rows (0 if under two) and sets *width. False on ENOMEM. */
static bool find_rows(const sym_ctx *x, uint32_t *rows, uint32_t *owner, size_t *nrows,
                      size_t *width)
{
    size_t maxm = 0;
    for (size_t c = 0; c < x->ncls; c++)
        if (positive(x, c) && x->start[c + 1] - x->start[c] > maxm)
            maxm = x->start[c + 1] - x->start[c];
    uint8_t *has = calloc(maxm + 1, 1);
    if (!has)
        return false;
    for (size_t c = 0; c < x->ncls; c++)
        if (positive(x, c))
            has[x->start[c + 1] - x->start[c]] = 1;
    size_t best = 0, best_m = 0;
    for (size_t m = 2; m <= maxm; m++) {
        size_t r = has[m] ? rows_of(x, m, NULL, owner) : 0;
        if (r >= best && r >= 2)
            best = r, best_m = m;
    }
    free(has);
    *nrows = best ? rows_of(x, best_m, rows, owner) : 0;
    *width = best_m;
    return true;
}

/* The swap of rows a, a + 1 (cols false) or of columns a, a + 1: sets
 * x->perm and moved[0 .. 2 * len), and the two vectors as public
 * literals into xv, yv (either may be NULL). */
static size_t swap_of(const sym_ctx *x, const uint32_t *mat, size_t r, size_t m, bool cols,
                      size_t a, uint32_t *moved, int *xv, int *yv)
{
    size_t len = cols ? r : m;
    for (size_t t = 0; t < len; t++) {
        uint32_t u = cols ? mat[t * m + a] : mat[a * m + t];
        uint32_t w = cols ? mat[t * m + a + 1] : mat[(a + 1) * m + t];
        if (moved) {
            x->perm[u] = w;
            x->perm[w] = u;
            moved[2 * t] = u;
            moved[2 * t + 1] = w;
        }
        if (xv) {
            xv[t] = (int)u + 1;
            yv[t] = (int)w + 1;
        }
    }
    return len;
}

/* Do rows i and j exclude each other in every column (a clause
 * (~M[i][k] | ~M[j][k]) for each k: adjacent vertices of a colouring)? */
static bool rows_exclude(const sym_ctx *x, const uint32_t *mat, size_t m, size_t i, size_t j)
{
    for (size_t k = 0; k < m; k++) {
        lit_t a = 2 * mat[i * m + k] + 1, b = 2 * mat[j * m + k] + 1, c[2];
        c[0] = a < b ? a : b;
        c[1] = a < b ? b : a;
        if (!has_clause(x, c, 2))
            return false;
    }
    return true;
}

/* The row that the o-th clause on row i's first variable pairs it with,
 * if that clause is binary and negative and the two rows exclude each
 * other; else UINT32_MAX. row_of maps a first-column variable to its row. */
static uint32_t neighbour(const sym_ctx *x, const uint32_t *mat, size_t m, const uint32_t *row_of,
                          size_t i, uint32_t o)
{
    uint32_t c = x->occ[o];
    const lit_t *l = x->lits + x->start[c];
    if (x->start[c + 1] - x->start[c] != 2 || !(l[0] & l[1] & 1u))
        return UINT32_MAX;
    uint32_t w = lit_var(l[0]) == mat[i * m] ? lit_var(l[1]) : lit_var(l[0]);
    uint32_t j = row_of[w];
    return j != UINT32_MAX && j != i && rows_exclude(x, mat, m, i, j) ? j : UINT32_MAX;
}

/* Value symmetry of a colouring: when every adjacent column swap holds,
 * the columns are interchangeable (the swaps generate every permutation
 * of them). Rows pairwise exclusive in every column (a clique) take
 * distinct columns in any model: each has some true variable (its row
 * clause) and no two share a column. A column permutation mapping the
 * column of clique row c_t to t turns any model into one with M[c_t][t]
 * true, so the units M[c_t][t] keep satisfiability (and a model found is
 * one of the formula: no variable is added). A simple, strong breaking
 * for graph colouring: the q clique vertices' q! * (m choose q) colour
 * choices collapse to one (Van Gelder, "Another look at graph coloring
 * via propositional satisfiability", 2008). The clique is greedy: the row
 * with the most exclusive neighbours among those of its first column's
 * binary clauses, then repeatedly the candidate adjacent to all chosen
 * with the most neighbours. Returns 0 or PSI_SAT_ENOMEM. */
static int fix_clique(sym_ctx *x, const uint32_t *mat, size_t r, size_t m)
{
    psi_sat *s = x->s;
    uint32_t *row_of = malloc(((size_t)s->nvars + 1) * sizeof *row_of);
    uint32_t *deg = calloc(r, sizeof *deg);
    uint32_t *clique = malloc((m + 1) * sizeof *clique);
    int rc = PSI_SAT_ENOMEM;
    if (!row_of || !deg || !clique)
        goto out;
    for (uint32_t v = 0; v < s->nvars; v++)
        row_of[v] = UINT32_MAX;
    for (size_t i = 0; i < r; i++)
        row_of[mat[i * m]] = (uint32_t)i;
    size_t best = 0;
    for (size_t i = 0; i < r; i++) {
        uint32_t v = mat[i * m];
        for (uint32_t o = x->occ_at[v]; o < x->occ_at[v + 1]; o++)
            deg[i] += neighbour(x, mat, m, row_of, i, o) != UINT32_MAX;
        if (deg[i] > deg[best])
            best = i;
    }
    size_t q = 0;
    clique[q++] = (uint32_t)best;
    while (q < m) {
        uint32_t pick = UINT32_MAX, v = mat[best * m];
        for (uint32_t o = x->occ_at[v]; o < x->occ_at[v + 1]; o++) {
            uint32_t j = neighbour(x, mat, m, row_of, best, o);
            if (j == UINT32_MAX || (pick != UINT32_MAX && deg[j] <= deg[pick]))
                continue;
            bool all = true;
            for (size_t t = 0; t < q && all; t++)
                all = clique[t] != j && rows_exclude(x, mat, m, clique[t], j);
            if (all)
                pick = j;
        }
        if (pick == UINT32_MAX)
            break;
        clique[q++] = pick;
    }
    rc = 0;
    if (q < 2)
        goto out; /* one row alone: fixing it is still sound, but worth little */
    for (size_t t = 0; t < q && !rc; t++) {
        int unit = (int)mat[clique[t] * m + t] + 1;
        rc = psi_sat_add_clause(s, &unit, 1);
    }
    s->st.symmetries += q;
out:
    free(row_of);
    free(deg);
    free(clique);
    return rc;
}

/* Builds the row matrix, verifies the adjacent row and column swaps and
 * adds the lex-leader constraint of each verified one. Returns 0 or
 * PSI_SAT_ENOMEM. */
static int run(sym_ctx *x)
{
    psi_sat *s = x->s;
    if (!build(x))
        return PSI_SAT_ENOMEM;
    size_t r = 0, m = 0;
    uint32_t *rows = malloc((x->ncls + 1) * sizeof *rows);
    uint32_t *owner = malloc(((size_t)s->nvars + 1) * sizeof *owner);
    uint32_t *mat = NULL, *moved = NULL;
    uint8_t *ok = NULL;
    int *xv = NULL, *yv = NULL, rc = PSI_SAT_ENOMEM;
    if (!rows || !owner || !find_rows(x, rows, owner, &r, &m))
        goto out;
    if (r < 2) {
        rc = 0;
        goto out;
    }
    size_t big = r > m ? r : m;
    mat = malloc(r * m * sizeof *mat);
    moved = malloc(2 * big * sizeof *moved);
    xv = malloc(big * sizeof *xv);
    yv = malloc(big * sizeof *yv);
    ok = calloc(r + m, 1); /* ok[a]: row swap a verified; ok[r + a]: column swap a */
    if (!mat || !moved || !xv || !yv || !ok)
        goto out;
    /* mat[i * m + k]: row i's k-th smallest var (clauses are sorted). */
    for (size_t i = 0; i < r; i++)
        for (size_t k = 0; k < m; k++)
            mat[i * m + k] = lit_var(x->lits[x->start[rows[i]] + k]);
    /* Verify all, then add: the constraints are not part of the formula
     * the candidates are checked against. */
    for (size_t a = 0; a + 1 < r + m; a++) {
        bool cols = a >= r;
        if (a + 1 == r)
            continue; /* no row after the last */
        size_t len = swap_of(x, mat, r, m, cols, cols ? a - r : a, moved, NULL, NULL);
        int v = verify(x, moved, 2 * len);
        for (size_t t = 0; t < 2 * len; t++)
            x->perm[moved[t]] = moved[t];
        if (v < 0)
            goto out;
        ok[a] = (uint8_t)v;
    }
    /* Lex-leader clauses only in the pigeonhole-like case, where every
     * adjacent row swap and every column swap holds (the full row and
     * column symmetry group): lex-leader clauses for the colour symmetry
     * alone of a colouring (columns without rows) were measured to slow
     * satisfiable instances down (16 random 6-colourings of 100 vertices:
     * median 0.075 s -> 0.225 s); that case fixes a clique's colours. */
    rc = 0;
    size_t verified = 0, cols_verified = 0;
    for (size_t a = 0; a + 1 < r + m; a++) {
        verified += ok[a];
        cols_verified += a >= r && ok[a];
    }
    if (verified != r + m - 2) {
        /* Interchangeable columns without interchangeable rows (the
         * colours of a colouring): fix the colours of a clique instead. */
        if (s->opt.symmetry_clique && cols_verified == m - 1)
            rc = fix_clique(x, mat, r, m);
        goto out;
    }
    for (size_t a = 0; a + 1 < r + m && !rc; a++) {
        if (!ok[a])
            continue;
        bool cols = a >= r;
        size_t len = swap_of(x, mat, r, m, cols, cols ? a - r : a, NULL, xv, yv);
        rc = add_lex(s, xv, yv, len);
        s->st.symmetries++;
    }
out:
    free(rows);
    free(owner);
    free(mat);
    free(moved);
    free(ok);
    free(xv);
    free(yv);
    return rc;
}

int psi_symmetry_break(psi_sat *s)
{
    sym_ctx x = {.s = s};
    int rc = run(&x);
    free(x.start);
    free(x.lits);
    free(x.table);
    free(x.occ_at);
    free(x.occ);
    free(x.perm);
    free(x.img);
    return rc;
}
