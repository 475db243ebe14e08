// q4gsw_requant.glsl: the code of one latent weight, shared by the two requant kernels.
//
// code = clamp(roundEven(x / s), -8, 7) + 8, and 8 where s == 0 (SPEC §2).
// GLSL's x / s may be 2.5 ULP off, which can move the quotient across a rounding
// tie or a clamp edge. With a power-of-two scale the candidate q0 times s and the
// remainder x - q0*s are exact, so the remainder decides the rounding exactly as
// IEEE roundEven of the true quotient would. q0 is clamped to [-8, 7] first, so an
// infinite or huge quotient never makes the remainder inf - inf.

uint q4_code(float x, float s)
{
    if (s == 0.0)
        return 8u;
    precise float q0 = clamp(roundEven(x / s), -8.0, 7.0);
    precise float r = x - q0 * s;   // exact for a power-of-two s; `precise`: no fma, no reordering
    precise float ar2 = 2.0 * abs(r);
    const float as = abs(s);
    // the sign of the remainder relative to the scale's sign says which neighbour is nearer
    const float dir = ((r < 0.0) != (s < 0.0)) ? -1.0 : 1.0;
    if (ar2 > as) {
        q0 += dir;
    } else if (ar2 == as) {
        // an exact tie between q0 and q0 + dir: take the even one
        const float q1 = q0 + dir;
        if ((int(q1) & 1) == 0)
            q0 = q1;
    }
    return uint(int(clamp(q0, -8.0, 7.0)) + 8);
}
