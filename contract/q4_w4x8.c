/* q4_w4x8.c: the one W_4X8 packer (SPEC §1b through the closed form of
 * q4_contract.h), used by the reference's checked q4ref_pack_w4x8 and by the case
 * generator. */
#include "q4_contract.h"

void q4_w4x8_pack(const uint8_t *codes, int64_t N, int64_t K, uint32_t *w)
{
    /* Start from the padding word everywhere: the words of an odd-N4 block's missing
     * upper half are never written below and so stay exactly Q4_W4X8_PAD. */
    const int64_t words = q4_w4x8_words(N, K);
    for (int64_t i = 0; i < words; i++)
        w[i] = Q4_W4X8_PAD;
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            uint32_t *word = &w[q4_w4x8_word(N, n, k)];
            const unsigned sh = q4_w4x8_shift(n, k);
            *word = (*word & ~(0xFu << sh)) | (uint32_t)codes[n * K + k] << sh;
        }
}
