/* q4ref_threads.c: how many threads the reference uses, in one place.
 *
 * The truth (fp64) and the fp32 reference spread their rows or elements over every
 * core with OpenMP, and the GEMMs over OpenBLAS's threads. Every parallel loop
 * computes each output element alone, in the same order on any thread, and any sum
 * across elements is taken afterwards in index order, so results are bit-identical
 * whatever the thread count (reference/tests/test_threads.c).
 *
 * OpenBLAS's own threads are not: its threaded GEMM gives other last bits with
 * another thread count. So OpenBLAS runs single-threaded, and a GEMM is cut into
 * blocks of GEMM_ROWS rows of C (boundaries that do not depend on the thread count),
 * one single-threaded call per block, the blocks spread over OpenMP's threads. */
#include <cblas.h>
#include <omp.h>

#include "q4ref_internal.h"

int q4ref_threads(void) { return omp_get_max_threads(); }

int q4ref_thread(void) { return omp_get_thread_num(); }

#define GEMM_ROWS 64

void q4ref_set_threads(int n)
{
    if (n <= 0)
        n = omp_get_num_procs();
    omp_set_num_threads(n);
}

/* Row i0 of op(A): row i0 of A, or column i0 of A when A is transposed. */
static int64_t a_offset(enum CBLAS_TRANSPOSE ta, int64_t i0, int64_t lda)
{
    return ta == CblasNoTrans ? i0 * lda : i0;
}

void q4ref_dgemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                 int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb,
                 double beta, double *c)
{
    openblas_set_num_threads(1);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t i0 = 0; i0 < m; i0 += GEMM_ROWS) {
        int64_t rows = m - i0 < GEMM_ROWS ? m - i0 : GEMM_ROWS;
        cblas_dgemm(CblasRowMajor, ta, tb, (int)rows, (int)n, (int)k, 1.0,
                    a + a_offset(ta, i0, lda), (int)lda, b, (int)ldb, beta, c + i0 * n, (int)n);
    }
}

void q4ref_sgemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                 int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                 float beta, float *c)
{
    openblas_set_num_threads(1);
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t i0 = 0; i0 < m; i0 += GEMM_ROWS) {
        int64_t rows = m - i0 < GEMM_ROWS ? m - i0 : GEMM_ROWS;
        cblas_sgemm(CblasRowMajor, ta, tb, (int)rows, (int)n, (int)k, 1.0f,
                    a + a_offset(ta, i0, lda), (int)lda, b, (int)ldb, beta, c + i0 * n, (int)n);
    }
}
