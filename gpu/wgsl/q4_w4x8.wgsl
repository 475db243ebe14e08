// q4_w4x8.wgsl: reading the W_4X8 layout (SPEC §1b), included by the kernels that read
// weights (the worker pastes it in place of an "//!include" line).

// The four signed values (code - 8) of one row of a W_4X8 word: byte b is K = 4 k4 + b;
// the low nibble is the even row of the word's row pair (odd = 0), the high one the odd.
fn q4_row4(word: u32, odd: u32) -> vec4<f32> {
    let sh = vec4<u32>(0u, 8u, 16u, 24u) + vec4<u32>(4u * odd);
    return vec4<f32>((vec4<u32>(word) >> sh) & vec4<u32>(0xFu)) - vec4<f32>(8.0);
}

// The signed value (code - 8) of element (n, k) of W_4X8 with N8 block columns.
fn q4_value(w: ptr<storage, array<vec4<u32>>, read>, n: u32, k: u32, N8: u32) -> f32 {
    let n4 = n >> 2u;
    let ni = n & 3u;
    let word = (*w)[(k >> 2u) * N8 + (n4 >> 1u)][(n4 & 1u) * 2u + (ni >> 1u)];
    return f32((word >> (8u * (k & 3u) + 4u * (ni & 1u))) & 0xFu) - 8.0;
}
