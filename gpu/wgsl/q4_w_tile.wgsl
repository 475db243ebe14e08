// q4_w_tile.wgsl: stages the dequantized weights of a 32 n x 32 k tile into Bs (of
// gemm_tile.wgsl) for the two linear kernels that read W_4X8 (pasted by "//!include";
// it uses the kernel's w4, scales and params.N, N8, K, gs). The 32 W_4X8 blocks (8
// rows x 4 K) that cover the tile are decoded once, each by two invocations (words 2h
// and 2h + 1); rows n >= N (odd N4's padding) and k >= K stage 0. by_k: Bs[k][n] (the
// forward's layout, one component per store), else Bs[n][k] (the backward's, a row's
// four K values being one vec4).
fn stage_w(n0: u32, k0: u32, lid: u32, by_k: bool) {
    let K4 = params.K / 4u;
    let b = lid / 2u;
    let h = lid % 2u;
    let bk = b % 8u;
    let bn = b / 8u;
    let k4 = k0 / 4u + bk;
    let n8 = n0 / 8u + bn;
    var blk = vec4<u32>(0x88888888u);
    if (k4 < K4 && n8 < params.N8) {
        blk = w4[k4 * params.N8 + n8];
    }
    let g = ((4u * k4) / params.gs) * params.N;
    for (var p = 2u * h; p < 2u * h + 2u; p++) {
        for (var odd = 0u; odd < 2u; odd++) {
            let nl = bn * 8u + 2u * p + odd;          // row within the tile
            let n = n0 + nl;
            var s = 0.0;
            if (n < params.N && k4 < K4) {
                s = scales[g + n];
            }
            let v = q4_row4(blk[p], odd) * s;
            if (by_k) {
                for (var j = 0u; j < 4u; j++) {
                    Bs[(bk * 4u + j) * 8u + nl / 4u][nl % 4u] = v[j];
                }
            } else {
                Bs[nl * 8u + bk] = v;
            }
        }
    }
}
