// q4vk: bindings=6 push=32
// linear_q4gsw_mma.comp: linear_q4gsw on tensor cores (for speed; VK_NV_cooperative_matrix
// with s8 x s8 -> s32 16x16x32 tiles), exact in its integer part. The operands come
// from linear_slice_i8 (x as 4 int8 digit planes under a power-of-two exponent per
// row and block of blk K) and unpack_w_i8 (the codes as int8). For each block, each
// digit plane's product with the codes is an exact int32 sum (|sum| <= blk * 64 * 8 <=
// 2^16); the planes pair up as hi = P0 * 128 + P1 and lo = P2 * 128 + P3 (both below
// 2^24, so exact as floats), v = hi * 2^14 + lo is the block's dot product in units
// of its last digit (one rounding), and y += ldexp(v * scale, e - 27) (two more: the
// scaling by 2^(e-27) is exact unless the result is subnormal). docs/numerics.md
// derives why that meets SPEC §3's bound; the launcher runs this kernel only where
// linear_slice_i8 found every element of x exact to a quarter of its rounding unit.
// A workgroup (8 subgroups of 32) owns a 64 x 128 tile of y; subgroup w a 32 x 32
// sub-tile (2 x 2 fragments of 16 x 16, one int32 accumulator per digit plane each).
// Each step of 32 K is staged into shared memory by the whole workgroup (16-byte
// loads of 8 KiB of digits and 4 KiB of codes, each contiguous: linear_slice_i8 and
// unpack_w_i8 write in this order; the next step's loads in flight while this one
// multiplies; two buffers, one barrier a step). Rows are padded to 48 bytes so that the fragment loads' 16-byte
// rows fall in distinct banks. At each block's end every invocation scales its own
// components of each fragment into float accumulators (fragments too): which (row,
// column) a component holds is read once from an "iota" fragment loaded from r*16+c,
// since a fragment type's component layout is the same whatever filled it. A block's
// term is ((v * f1) * scale) * f2 with 2^(e-27) = f1 * f2, f1 = 2^clamp(e-27, -126, 88):
// v * f1 (v a nonzero integer below 2^38) is then a normal float, neither product
// overflows or underflows unless the term itself does, and f2 is 1 unless the block's
// |x| lies below 2^-100 or reaches 2^115. The row factors and the column scales of a
// block are staged by the workgroup during the block before it (three slots: a slot is
// rewritten only after every subgroup has passed the barrier that follows its last
// reader).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_NV_cooperative_matrix : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_GOOGLE_include_directive : require
#include "q4_fold.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer D { uvec4 d4[]; };      // int8 digits, staging order
layout(set = 0, binding = 1) readonly buffer E { int e[]; };         // [Mp][K/blk]
layout(set = 0, binding = 2) readonly buffer W { uvec4 w4[]; };      // int8 codes - 8, staging order
layout(set = 0, binding = 3) readonly buffer S { float sc[]; };      // [K/gs, N]
layout(set = 0, binding = 4) readonly buffer B { float bias[]; };    // [N]
layout(set = 0, binding = 5) writeonly buffer Y { float y[]; };      // [M, N]

layout(push_constant) uniform P {
    uint M, N, K, gs, blk, Mp;
    uint has_bias;
    uint tiles_n;    // Np / 128; the grid (folded) covers Mp / 64 * tiles_n tiles
} pc;

#define ACC icoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define FACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define ROW 12u                    // uints per staged row of 32 int8 (32 bytes + 16 padding)
#define A_WORDS (4u * 64u * ROW)   // one buffer: 4 planes x 64 rows
#define B_WORDS (128u * ROW)       // one buffer: 128 rows of W

shared uint s_a[2 * A_WORDS];
shared uint s_b[2 * B_WORDS];
shared float s_iota[256];
shared float s_f1[3 * 64], s_f2[3 * 64], s_sc[3 * 128];   // per block slot: rows, columns

uvec4 ga[2], gb;                   // the next step's operands, in flight

void fetch(uint mt, uint nt, uint k)
{
    uint steps = pc.K / 32u, ks = k / 32u;
    [[unroll]] for (uint j = 0u; j < 2u; j++)                // plane, row, half of 4 x 64 x 2
        ga[j] = d4[((mt / 64u) * steps + ks) * 512u + gl_LocalInvocationIndex + 256u * j];
    gb = w4[((nt / 128u) * steps + ks) * 256u + gl_LocalInvocationIndex];  // row, half
}

void stage(uint buf)
{
    [[unroll]] for (uint j = 0u; j < 2u; j++) {
        uint i = gl_LocalInvocationIndex + 256u * j;
        uint o = buf * A_WORDS + (i / 2u) * ROW + (i % 2u) * 4u;   // (p * 64 + r) rows
        s_a[o] = ga[j].x; s_a[o + 1u] = ga[j].y; s_a[o + 2u] = ga[j].z; s_a[o + 3u] = ga[j].w;
    }
    uint t = gl_LocalInvocationIndex;
    uint o = buf * B_WORDS + (t / 2u) * ROW + (t % 2u) * 4u;
    s_b[o] = gb.x; s_b[o + 1u] = gb.y; s_b[o + 2u] = gb.z; s_b[o + 3u] = gb.w;
}

// Block b's row factors and column scales into slot b % 3: 2^(e-27) = f1 * f2, both
// normal floats.
void factors(uint mt, uint nt, uint b)
{
    uint t = gl_LocalInvocationIndex, slot = b % 3u;
    if (t < 64u) {
        int x = e[(mt + t) * (pc.K / pc.blk) + b] - 27, x1 = clamp(x, -126, 88);
        s_f1[slot * 64u + t] = ldexp(1.0, x1);
        s_f2[slot * 64u + t] = ldexp(1.0, x - x1);
    } else if (t < 192u) {
        uint n = nt + t - 64u;
        s_sc[slot * 128u + t - 64u] = n < pc.N ? sc[((b * pc.blk) / pc.gs) * pc.N + n] : 0.0;
    }
}

void main()
{
    uint gid = q4_flat_group();
    if (gid >= pc.Mp / 64u * pc.tiles_n)
        return;
    uint sg = gl_SubgroupID;
    // Tiles in bands of 16 row tiles, column by column inside a band: the workgroups in
    // flight share 16 row tiles of digits and a few column tiles of codes in L2, instead
    // of every column tile's codes for one row tile. H200, M = 4096, the four gs = 128
    // shapes together: 12.45 ms in row order, 12.08 with bands of 4, 12.07 of 8, 11.79
    // of 16 (per shape the best band differed, by up to 10%).
    uint tiles_m = pc.Mp / 64u, band = gid / (16u * pc.tiles_n), first = band * 16u;
    uint rows = min(16u, tiles_m - first), local = gid % (16u * pc.tiles_n);
    uint mt = (first + local % rows) * 64u, nt = (local / rows) * 128u;   // the tile
    uint wm = (sg / 4u) * 32u, wn = (sg % 4u) * 32u;                      // the sub-tile in it
    uint nb = pc.K / pc.blk, steps = pc.blk / 32u;
    s_iota[gl_LocalInvocationIndex] = float(gl_LocalInvocationIndex);
    FACC yacc[2][2];
    [[unroll]] for (uint i = 0u; i < 2u; i++)
        [[unroll]] for (uint j = 0u; j < 2u; j++)
            yacc[i][j] = FACC(0.0);
    ACC acc[4][2][2];
    fetch(mt, nt, 0u);
    stage(0u);
    factors(mt, nt, 0u);
    barrier();
    FACC iota;
    coopMatLoadNV(iota, s_iota, 0u, 16u, false);
    uint buf = 0u;
    for (uint b = 0u; b < nb; b++) {
        [[unroll]] for (uint p = 0u; p < 4u; p++)
            [[unroll]] for (uint i = 0u; i < 2u; i++)
                [[unroll]] for (uint j = 0u; j < 2u; j++)
                    acc[p][i][j] = ACC(0);
        for (uint s = 0u; s < steps; s++) {
            uint k_next = (b * steps + s + 1u) * 32u;
            bool more = k_next < pc.K;
            if (more)
                fetch(mt, nt, k_next);
            icoopmatNV<8, gl_ScopeSubgroup, 32, 16> bw[2];
            [[unroll]] for (uint j = 0u; j < 2u; j++)
                coopMatLoadNV(bw[j], s_b, buf * B_WORDS + (wn + 16u * j) * ROW, ROW, true);
            [[unroll]] for (uint p = 0u; p < 4u; p++) {
                [[unroll]] for (uint i = 0u; i < 2u; i++) {
                    icoopmatNV<8, gl_ScopeSubgroup, 16, 32> a;
                    coopMatLoadNV(a, s_a, buf * A_WORDS + (p * 64u + wm + 16u * i) * ROW, ROW,
                                  false);
                    [[unroll]] for (uint j = 0u; j < 2u; j++)
                        acc[p][i][j] = coopMatMulAddNV(a, bw[j], acc[p][i][j]);
                }
            }
            // This guard is for speed: unguarded, the stage would only write the last
            // operands again into the buffer nothing reads any more (no bug shows it),
            // yet the H200 ran the kernel 8-14% slower so; 0.4-6.5% slower with the fetch
            // branch-free too (the last step fetching itself again), 17-27% with only
            // the fetch branch-free (docs/results/h200-2026-12-01-s5, runs 2 and 3).
            if (more)
                stage(buf ^ 1u);
            // Once a block, for speed: slot (b + 1) % 3 is read by no subgroup during
            // block b, so staging it at any step of b gives the same result; past the
            // last block it would read beyond the exponents and scales.
            if (s + 1u == steps && b + 1u < nb)
                factors(mt, nt, b + 1u);
            barrier();
            buf ^= 1u;
        }
        // The block's sums in units of its last digit, scaled component by component.
        uint slot = b % 3u;
        [[unroll]] for (uint i = 0u; i < 2u; i++) {
            [[unroll]] for (uint j = 0u; j < 2u; j++) {
                ACC hi = acc[0][i][j] * 128 + acc[1][i][j];
                ACC lo = acc[2][i][j] * 128 + acc[3][i][j];
                FACC v = FACC(hi) * 16384.0 + FACC(lo);
                for (int t = 0; t < v.length(); t++) {
                    uint rc = uint(iota[t]), r = wm + 16u * i + rc / 16u;
                    float c = s_sc[slot * 128u + wn + 16u * j + rc % 16u];
                    yacc[i][j][t] += v[t] * s_f1[slot * 64u + r] * c * s_f2[slot * 64u + r];
                }
            }
        }
    }
    [[unroll]] for (uint i = 0u; i < 2u; i++) {
        [[unroll]] for (uint j = 0u; j < 2u; j++) {
            for (int t = 0; t < iota.length(); t++) {
                uint rc = uint(iota[t]);
                uint m = mt + wm + 16u * i + rc / 16u, n = nt + wn + 16u * j + rc % 16u;
                if (m >= pc.M || n >= pc.N)
                    continue;
                float bn = pc.has_bias != 0u ? bias[n] : 0.0;
                y[m * pc.N + n] = yacc[i][j][t] + bn;
            }
        }
    }
}
