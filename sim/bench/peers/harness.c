/* Timing harness for the software peers (driven by axon.sim.bench.peers).
 *
 *   peers_bench CORPUS OUTPUT RUNS MIN_REPEATS MIN_BLOCK_NS COUNT_LIMIT
 *
 * CORPUS is written by axon.sim.bench.peers._write_corpus (native byte order):
 *
 *   char magic[8] = "AXPEERS1"
 *   u32 games, u32 queries, u32 entries      entries = sum over games of plies + 1
 *   u32 plies[games]
 *   u32 words[entries]       per game: a barrier word, then the game's move words
 *   u64 keys[entries]        per game: the start key, then the key after each ply
 *   u32 rule50[entries]      halfmove clock of the same positions
 *   u32 from_null[entries]   plies since the start or the last null move
 *   u32 query_game[queries], u32 query_top[queries]
 *
 * Entry 0 of a game stands for its start position, so entry top + 1 is the
 * position after the word at `top`: that is the position a query asks about.
 *
 * Timing. One warm-up pass answers every query with each peer (the answers
 * are written out) and picks, per query and peer, the repeat count K: the
 * smallest MIN_REPEATS * 2^j whose block of K back-to-back calls takes at
 * least MIN_BLOCK_NS, so that the two clock_gettime(CLOCK_MONOTONIC) reads
 * weigh little. Then RUNS passes time every query again (K calls, elapsed / K)
 * and the output gives the median over the passes. Each pass also times all
 * queries once each, in order, between two clock reads ("stream"): there
 * the caches and branch predictors are not trained on the query being timed.
 * Results go through a volatile sink, so no call can be dropped.
 *
 * OUTPUT (text): a line "CLOCK_RES_NS BASELINE_NS STREAM_CPW_NS STREAM_ZOBRIST_NS"
 * (stream figures are medians over the passes), then one line per query:
 * "CPW_NS ZOBRIST_NS CPW_ANSWER ZOBRIST_ANSWER CPW_K ZOBRIST_K".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peers.h"

enum { PEER_CPW, PEER_ZOBRIST, PEER_NOOP, PEERS_TIMED = 2 };

/* Beyond this a block is long enough whatever the query. */
#define MAX_REPEATS 65536L

typedef struct {
    const uint32_t *word;  /* the word at `top` */
    const uint64_t *key;   /* the key of the position after it */
    int rule50, from_null;
} Query;

static volatile unsigned sink;
static int count_limit;

static void die(const char *what)
{
    fprintf(stderr, "peers_bench: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
    exit(2);
}

static void *allocate(size_t count, size_t size)
{
    void *memory = calloc(count ? count : 1, size);
    if (!memory)
        die("out of memory");
    return memory;
}

static void read_exactly(FILE *file, void *into, size_t size, size_t count)
{
    if (fread(into, size, count, file) != count) {
        errno = 0;
        die("corpus file is shorter than its header says");
    }
}

static int64_t elapsed_ns(const struct timespec *begin, const struct timespec *end)
{
    return (int64_t)(end->tv_sec - begin->tv_sec) * 1000000000 + (end->tv_nsec - begin->tv_nsec);
}

static int ask(int peer, const Query *query)
{
    switch (peer) {
    case PEER_CPW:
        return cpw_repetition(query->word);
    case PEER_ZOBRIST:
        return zobrist_repetition(query->key, query->rule50, query->from_null, count_limit);
    default:
        return peer_noop(query->word);
    }
}

/* K calls between two clock reads. The switch sits outside the loops, so the
 * loop body is the call and the sink update only. */
static int64_t time_block(int peer, const Query *query, long repeats)
{
    struct timespec begin, end;
    long j;

    switch (peer) {
    case PEER_CPW:
        clock_gettime(CLOCK_MONOTONIC, &begin);
        for (j = 0; j < repeats; ++j)
            sink += cpw_repetition(query->word);
        clock_gettime(CLOCK_MONOTONIC, &end);
        break;
    case PEER_ZOBRIST:
        clock_gettime(CLOCK_MONOTONIC, &begin);
        for (j = 0; j < repeats; ++j)
            sink += zobrist_repetition(query->key, query->rule50, query->from_null, count_limit);
        clock_gettime(CLOCK_MONOTONIC, &end);
        break;
    default:
        clock_gettime(CLOCK_MONOTONIC, &begin);
        for (j = 0; j < repeats; ++j)
            sink += peer_noop(query->word);
        clock_gettime(CLOCK_MONOTONIC, &end);
        break;
    }
    return elapsed_ns(&begin, &end);
}

/* Every query once, in order, between two clock reads; ns per query. */
static double time_stream(int peer, const Query *queries, uint32_t count)
{
    struct timespec begin, end;
    uint32_t q;

    clock_gettime(CLOCK_MONOTONIC, &begin);
    if (peer == PEER_CPW) {
        for (q = 0; q < count; ++q)
            sink += cpw_repetition(queries[q].word);
    } else {
        for (q = 0; q < count; ++q)
            sink += zobrist_repetition(queries[q].key, queries[q].rule50, queries[q].from_null,
                                       count_limit);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    return count ? (double)elapsed_ns(&begin, &end) / count : 0.0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s CORPUS OUTPUT RUNS MIN_REPEATS MIN_BLOCK_NS COUNT_LIMIT\n",
                argv[0]);
        return 2;
    }
    long runs = strtol(argv[3], NULL, 10), min_repeats = strtol(argv[4], NULL, 10);
    long min_block_ns = strtol(argv[5], NULL, 10);
    count_limit = (int)strtol(argv[6], NULL, 10);
    if (runs < 1 || min_repeats < 1 || min_block_ns < 0 || count_limit < 1) {
        fprintf(stderr, "peers_bench: RUNS, MIN_REPEATS and COUNT_LIMIT must be positive\n");
        return 2;
    }

    FILE *file = fopen(argv[1], "rb");
    if (!file)
        die("cannot open the corpus file");
    char magic[8];
    uint32_t header[3];
    read_exactly(file, magic, 1, sizeof magic);
    if (memcmp(magic, "AXPEERS1", sizeof magic) != 0) {
        errno = 0;
        die("not a corpus file (bad magic)");
    }
    read_exactly(file, header, sizeof header[0], 3);
    uint32_t games = header[0], count = header[1], entries = header[2];
    uint32_t *plies = allocate(games, sizeof *plies);
    read_exactly(file, plies, sizeof *plies, games);
    /* One word below the first game's barrier: the wiki's loop decrements its
     * pointer after reading the barrier, and that pointer must stay inside
     * the array. */
    uint32_t *word_memory = allocate((size_t)entries + 1, sizeof *word_memory);
    uint32_t *words = word_memory + 1;
    word_memory[0] = AXON_WORD_BARRIER;
    uint64_t *keys = allocate(entries, sizeof *keys);
    uint32_t *rule50 = allocate(entries, sizeof *rule50);
    uint32_t *from_null = allocate(entries, sizeof *from_null);
    uint32_t *query_game = allocate(count, sizeof *query_game);
    uint32_t *query_top = allocate(count, sizeof *query_top);
    read_exactly(file, words, sizeof *words, entries);
    read_exactly(file, keys, sizeof *keys, entries);
    read_exactly(file, rule50, sizeof *rule50, entries);
    read_exactly(file, from_null, sizeof *from_null, entries);
    read_exactly(file, query_game, sizeof *query_game, count);
    read_exactly(file, query_top, sizeof *query_top, count);
    fclose(file);

    size_t *first_entry = allocate(games, sizeof *first_entry);
    size_t at = 0;
    for (uint32_t g = 0; g < games; ++g) {
        first_entry[g] = at;
        at += (size_t)plies[g] + 1;
        if (words[first_entry[g]] != AXON_WORD_BARRIER) {
            errno = 0;
            die("a game does not start with a barrier word");
        }
    }
    if (at != entries) {
        errno = 0;
        die("corpus entries do not add up");
    }
    Query *queries = allocate(count, sizeof *queries);
    for (uint32_t q = 0; q < count; ++q) {
        if (query_game[q] >= games || query_top[q] >= plies[query_game[q]]) {
            errno = 0;
            die("a query is out of range");
        }
        size_t entry = first_entry[query_game[q]] + query_top[q] + 1;
        queries[q].word = &words[entry];
        queries[q].key = &keys[entry];
        queries[q].rule50 = (int)rule50[entry];
        queries[q].from_null = (int)from_null[entry];
    }

    /* Warm-up: answers, and the repeat count of each query. */
    int *answers = allocate((size_t)PEERS_TIMED * count, sizeof *answers);
    long *repeats = allocate((size_t)PEERS_TIMED * count, sizeof *repeats);
    for (int peer = 0; peer < PEERS_TIMED; ++peer) {
        for (uint32_t q = 0; q < count; ++q) {
            long k = min_repeats;
            answers[peer * count + q] = ask(peer, &queries[q]);
            while (time_block(peer, &queries[q], k) < min_block_ns && k < MAX_REPEATS)
                k *= 2;
            repeats[peer * count + q] = k;
        }
    }

    double *per_run = allocate((size_t)PEERS_TIMED * runs * count, sizeof *per_run);
    double *stream = allocate((size_t)PEERS_TIMED * runs, sizeof *stream);
    for (long run = 0; run < runs; ++run) {
        for (int peer = 0; peer < PEERS_TIMED; ++peer) {
            for (uint32_t q = 0; q < count; ++q) {
                long k = repeats[peer * count + q];
                per_run[((size_t)peer * runs + run) * count + q] =
                    (double)time_block(peer, &queries[q], k) / k;
            }
            stream[peer * runs + run] = time_stream(peer, queries, count);
        }
    }

    struct timespec resolution;
    clock_getres(CLOCK_MONOTONIC, &resolution);
    double baseline[101];
    Query empty = {words, keys, 0, 0};
    for (int block = 0; block < 101; ++block)
        baseline[block] = (double)time_block(PEER_NOOP, &empty, 1024) / 1024;

    FILE *out = fopen(argv[2], "w");
    if (!out)
        die("cannot write the output file");
    fprintf(out, "%lld %.3f %.3f %.3f\n",
            (long long)resolution.tv_sec * 1000000000 + resolution.tv_nsec,
            median(baseline, 101), median(&stream[PEER_CPW * runs], runs),
            median(&stream[PEER_ZOBRIST * runs], runs));
    double *samples = allocate(runs, sizeof *samples);
    for (uint32_t q = 0; q < count; ++q) {
        double ns[PEERS_TIMED];
        for (int peer = 0; peer < PEERS_TIMED; ++peer) {
            for (long run = 0; run < runs; ++run)
                samples[run] = per_run[((size_t)peer * runs + run) * count + q];
            ns[peer] = median(samples, runs);
        }
        fprintf(out, "%.3f %.3f %d %d %ld %ld\n", ns[PEER_CPW], ns[PEER_ZOBRIST],
                answers[PEER_CPW * count + q], answers[PEER_ZOBRIST * count + q],
                repeats[PEER_CPW * count + q], repeats[PEER_ZOBRIST * count + q]);
    }
    if (fclose(out) != 0)
        die("cannot write the output file");
    return 0;
}
