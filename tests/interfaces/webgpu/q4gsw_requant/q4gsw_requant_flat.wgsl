// q4gsw_requant_flat.wgsl: fp32 latent weights [N, K] -> 4-bit codes in the flat layout
// (SPEC §1a: [N][K/2] bytes, even k in the low nibble), code = clamp(roundEven(latent
// / s), -8, 7) + 8 (8 where s == 0), written the way ExecuTorch's WebGPU kernels are
// (their interface, not their code): the output first, then the inputs, a uniform
// struct of sizes last; the packed weight written as u32 words (4 bytes, 8 codes);
// the scales' rows padded to scales_stride; the workgroup size an override.
//
// The latent and the scales are read as bits: WGSL lets an implementation assume no
// infinity occurs, so an infinite latent must never enter arithmetic. The rounding is
// decided in integers on the significands, |x / s| = xm / sm * 2^e exactly, so no
// rounding of a division can move a quotient across a tie or a clamp edge.
struct Sizes {
  N: u32,
  K: u32,
  group_size: u32,
  scales_stride: u32,
  words: u32,
}

@group(0) @binding(0) var<storage, read_write> t_packed: array<u32>;
@group(0) @binding(1) var<storage, read> t_latent: array<u32>;
@group(0) @binding(2) var<storage, read> t_scales: array<u32>;
@group(0) @binding(3) var<uniform> sizes: Sizes;

override WG_SIZE: u32 = 64u;

// The 4-bit code of x / s from their bits. s is zero or normal (SPEC §1).
fn code_of(xb: u32, sb: u32) -> u32 {
  if ((sb & 0x7FFFFFFFu) == 0u) {
    return 8u;
  }
  let negative = ((sb ^ xb) & 0x80000000u) != 0u;
  let se = i32((sb >> 23u) & 0xFFu);
  let xe = i32((xb >> 23u) & 0xFFu);
  let sm = (sb & 0x7FFFFFu) | 0x800000u;
  let xm = (xb & 0x7FFFFFu) | select(0u, 0x800000u, xe != 0);   // no hidden bit: denormal
  let e = max(xe, 1) - se;    // |x / s| = xm / sm * 2^e, xm / sm < 2
  var mag = 0u;               // roundEven(|x / s|), 8 for anything that clamps
  if (xe == 255 || e > 5) {
    mag = 8u;
  } else if (xm != 0u && e >= -1) {
    let num = select(xm, xm << u32(max(e, 0)), e >= 0);   // < 2^29
    let den = select(sm << 1u, sm, e >= 0);                 // < 2^25
    mag = num / den;
    let twice_rem = 2u * (num - mag * den);
    if (twice_rem > den || (twice_rem == den && (mag & 1u) == 1u)) {
      mag += 1u;
    }
    mag = min(mag, 8u);
  }
  return select(8u + min(mag, 7u), 8u - mag, negative);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let w = gid.x;
  if (w >= sizes.words) {
    return;
  }
  let row_bytes = sizes.K / 2u;
  var word = 0u;
  for (var i = 0u; i < 8u; i++) {   // nibble i of the word: byte i / 2
    let b = 4u * w + i / 2u;
    let n = b / row_bytes;
    let k = 2u * (b % row_bytes) + i % 2u;
    let s = t_scales[(k / sizes.group_size) * sizes.scales_stride + n];
    word |= code_of(t_latent[n * sizes.K + k], s) << (4u * i);
  }
  t_packed[w] = word;
}
