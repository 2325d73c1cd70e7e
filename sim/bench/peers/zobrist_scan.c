/* The usual software test: compare 64-bit Zobrist keys along the game record.
 *
 * This is Stockfish's scan (Position::do_move, which fills
 * StateInfo::repetition): only positions with the same side to move are
 * compared, starting 4 plies back (2 plies back is never equal: each side has
 * moved once), and no further back than min(rule50, pliesFromNull) -- the last
 * capture or pawn move, and the last null move, make older positions
 * unreachable. The keys are kept by the engine as it makes moves, so the
 * query itself is only this loop. Stockfish walks StateInfo::previous
 * pointers; a flat array of keys (the wiki's "list of keys") is the same
 * comparisons with no pointer chasing, so if anything it flatters this peer.
 */
#include "peers.h"

int zobrist_repetition(const uint64_t *key, int rule50, int plies_from_null, int count_limit)
{
    int end = rule50 < plies_from_null ? rule50 : plies_from_null;
    int count = 0;

    for (int i = 4; i <= end; i += 2) {
        if (key[-i] == key[0] && ++count >= count_limit)
            return 1;
    }
    return count > 0;
}
