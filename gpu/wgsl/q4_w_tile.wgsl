// q4_w_tile.wgsl: stages the dequantized weights of one step into Bs (of gemm_tile.wgsl)
// for the two linear kernels that read W_4X8 (pasted by "//!include"; it uses the
// kernel's w4, scales and params.N, N8, K, gs). by_k (the forward): BT n x BK k,
// Bs[k][n], one component per store; else (the backward) BK n x BT k, Bs[n][k], a row's
// four K values being one vec4. Each W_4X8 block (8 rows x 4 K) that covers the step is
// decoded once, by four invocations (one word, two rows each; consecutive blocks along
// N are consecutive in memory); rows n >= N (odd N4's padding) and k >= K stage 0.
fn stage_w(n0: u32, k0: u32, lid: u32, by_k: bool) {
    let K4 = params.K / 4u;
    let B4 = BT / 4u;
    var NB8 = BT / 8u;   // blocks along n
    if (!by_k) {
        NB8 = BK / 8u;
    }
    for (var e = lid; e < 2u * BT; e += WG) {   // (n blocks x k blocks) x 4 words
        let p = e % 4u;
        let b = e / 4u;
        let bn = b % NB8;
        let bk = b / NB8;
        let k4 = k0 / 4u + bk;
        let n8 = n0 / 8u + bn;
        var word = 0x88888888u;
        if (k4 < K4 && n8 < params.N8) {
            word = w4[k4 * params.N8 + n8][p];
        }
        let g = ((4u * k4) / params.gs) * params.N;
        for (var odd = 0u; odd < 2u; odd++) {
            let nl = bn * 8u + 2u * p + odd;          // row within the step
            let n = n0 + nl;
            var s = 0.0;
            if (n < params.N && k4 < K4) {
                s = scales[g + n];
            }
            let v = q4_row4(word, odd) * s;
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
