// q4_w_tile.wgsl: one invocation's share of a weight tile for the two linear kernels
// that read W_4X8 (pasted by "//!include"; it uses the kernel's w4, scales and params.N,
// N8, K, gs): the four K values of weight row n at k4, dequantized. fetch_w issues the
// word's and the scale's loads (gemm_reg.wgsl's fetch, before the step's arithmetic);
// w_row4 decodes them (its stage, after), so the loads overlap the FMAs. Rows n >= N
// (odd N4's padding) and k4 >= K / 4 give 0. Eight consecutive invocations take one
// block's eight rows, so they read its four words side by side.
var<private> w_word: u32;
var<private> w_scale: f32;

fn fetch_w(n: u32, k4: u32) {
    w_word = 0x88888888u;
    w_scale = 0.0;
    if (n < params.N && k4 < params.K / 4u) {
        w_word = w4[k4 * params.N8 + n / 8u][(n % 8u) / 2u];
        w_scale = scales[((4u * k4) / params.gs) * params.N + n];
    }
}

fn w_row4(n: u32) -> vec4<f32> {
    return q4_row4(w_word, n % 2u) * w_scale;
}
