// q4_w_tile.wgsl: stages the dequantized weights of one step into Bs (of gemm_tile.wgsl)
// for the two linear kernels that read W_4X8 (pasted by "//!include"; it uses the
// kernel's w4, scales and params.N, N8, K, gs). by_k (the forward): BT n x BK k,
// Bs[k][n], one component per store; else (the backward) BK n x BT k, Bs[n][k], a row's
// four K values being one vec4. Each W_4X8 block (8 rows x 4 K) that covers the step is
// decoded once, by four invocations (one word, two rows each; consecutive blocks along
// N are consecutive in memory); rows n >= N (odd N4's padding) and k >= K stage 0.
// fetch_w loads an invocation's words and their rows' scales; put_w decodes and stores.

// A step has 2 BT units ((n blocks x k blocks) x 4 words): 128 or 256, at most one per
// invocation; invocations lid >= 2 BT have none.
var<private> w_word: u32;          // the word of unit lid
var<private> w_scale: vec2<f32>;   // its even and odd row's scale

// Blocks along n in a step.
fn w_nb8(by_k: bool) -> u32 {
    return select(BK / 8u, BT / 8u, by_k);
}

fn fetch_w(n0: u32, k0: u32, lid: u32, by_k: bool) {
    let K4 = params.K / 4u;
    let NB8 = w_nb8(by_k);
    let e = lid;
    if (e < 2u * BT) {
        let p = e % 4u;
        let b = e / 4u;
        let k4 = k0 / 4u + b / NB8;
        let n8 = n0 / 8u + b % NB8;
        var word = 0x88888888u;
        if (k4 < K4 && n8 < params.N8) {
            word = w4[k4 * params.N8 + n8][p];
        }
        w_word = word;
        let g = ((4u * k4) / params.gs) * params.N;
        var s = vec2<f32>(0.0);
        for (var odd = 0u; odd < 2u; odd++) {
            let n = n8 * 8u + 2u * p + odd;
            if (n < params.N && k4 < K4) {
                s[odd] = scales[g + n];
            }
        }
        w_scale = s;
    }
}

fn put_w(lid: u32, by_k: bool) {
    let B4 = BT / 4u;
    let NB8 = w_nb8(by_k);
    let e = lid;
    if (e < 2u * BT) {
        let p = e % 4u;
        let b = e / 4u;
        let bn = b % NB8;
        let bk = b / NB8;
        for (var odd = 0u; odd < 2u; odd++) {
            let nl = bn * 8u + 2u * p + odd;          // row within the step
            let v = q4_row4(w_word, odd) * w_scale[odd];
            if (by_k) {
                for (var j = 0u; j < 4u; j++) {
                    Bs[(bk * 4u + j) * B4 + nl / 4u][nl % 4u] = v[j];
                }
            } else {
                Bs[nl * B4 + bk] = v;
            }
        }
    }
}
