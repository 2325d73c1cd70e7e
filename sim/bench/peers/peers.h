/* The software peers of `axon bench`: what a repetition query costs on a CPU.
 *
 * Each peer is compiled in its own translation unit, apart from the timing
 * harness (harness.c), and the build does not use link-time optimisation: the
 * harness only sees an opaque function, so the compiler can neither inline a
 * query into the timing loop nor hoist it out of the loop as loop-invariant.
 * The cost of the call itself (a few cycles) is part of every figure, as it
 * is in an engine that calls its repetition test once per node.
 */
#ifndef AXON_PEERS_H
#define AXON_PEERS_H

#include <stdint.h>

/* Bit 16 of a move word (axon.hdl.word): an irreversible move. */
#define AXON_WORD_BARRIER (UINT32_C(1) << 16)

/* The chessprogramming wiki's chain list (cpw_chain.c). `pVariant` points at
 * the newest move word; the scan goes down to a barrier word, which the move
 * list must hold below its first move. Returns 1 at the first closure. */
int cpw_repetition(const uint32_t *pVariant);

/* A Stockfish-style scan of Zobrist keys (zobrist_scan.c). `key` points at
 * the key of the position asked about; key[-i] is the key i plies earlier.
 * Returns 1 once `count_limit` (>= 1) earlier keys equal it. */
int zobrist_repetition(const uint64_t *key, int rule50, int plies_from_null, int count_limit);

/* An empty peer (baseline.c): the cost of the timing loop and the call. */
int peer_noop(const uint32_t *pVariant);

#endif
