/* The chain-list pseudo-code of the chessprogramming wiki ("Repetitions",
 * section "Repetition of Moves"), translated line for line to C.
 *
 * The wiki's SMove holds an origin and a target square; an entry is empty
 * when it holds no valid square index (the wiki offsets squares into a 12x12
 * mailbox for that). Here squares are 0..63, so 0xff marks an empty entry.
 * The move list holds 17-bit move words (axon.hdl.word): from-square in bits
 * 0-5, to-square in bits 6-11, and the barrier bit 16 is the wiki's
 * "irreversible" flag. The piece code in bits 12-15 is not looked at: the
 * pseudo-code matches squares only. The `goto l` loop, the two linear
 * searches over all 24 entries and the counter `c` of open chains are kept as
 * the wiki has them.
 */
#include "peers.h"

#define CHAIN_ENTRIES 24
#define EMPTY_SQUARE 0xff

typedef struct {
    uint8_t from, to;
} SMove;

static inline void setEmpty(SMove *move) { move->from = move->to = EMPTY_SQUARE; }
static inline int isEmpty(const SMove *move) { return move->from == EMPTY_SQUARE; }
static inline int isReversible(uint32_t word) { return !(word & AXON_WORD_BARRIER); }

int cpw_repetition(const uint32_t *pVariant)
{
    SMove chainList[CHAIN_ENTRIES], m;
    uint32_t word;
    short c = 0, i;

    for (i = 0; i < CHAIN_ENTRIES; ++i) {
        setEmpty(&chainList[i]);
    }

l:  word = *pVariant--; /* fetch move and decrement move list pointer */
    m.from = word & 0x3f;
    m.to = (word >> 6) & 0x3f;
    if (isReversible(word)) {
        /* lookup chain list for from-coordinate that match current to coordinate */
        for (i = 0; i < CHAIN_ENTRIES; ++i) {
            if (m.to == chainList[i].from) {
                if (m.from == chainList[i].to) {
                    if (--c == 0)
                        return 1; /* repetition detected */
                    setEmpty(&chainList[i]);
                    goto l;
                }
                chainList[i].from = m.from; /* concatenate moves */
                goto l;
            }
        }
        /* lookup for next empty slot, to add the current move in the chain list */
        for (i = 0; i < CHAIN_ENTRIES; ++i) {
            if (isEmpty(&chainList[i])) {
                chainList[i] = m;
                ++c;
                goto l;
            }
        }
    }
    return 0;
}
