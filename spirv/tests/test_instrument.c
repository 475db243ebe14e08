/* test_instrument.c: the probe pass (q4spv_instrument) on every built-in kernel and on
 * small test modules of SPIR-V 1.0, 1.3 and 1.5: the output validates, the map holds
 * the blocks, branches, load sites and source lines the source has, and modules the
 * pass cannot serve are refused with a sentence. (What the probes record on a device
 * is tested in gpu/tests.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "q4spv_instrument.h"
#include "q4spv_module.h"
#include "q4vk.h"
#include "spv_test_file.h"

/* The instructions of `opcode` in a module; with a nonzero mask, those whose word
 * `word` has a bit of it. */
static uint32_t count_where(const uint32_t *w, size_t n, uint32_t opcode, uint32_t word,
                            uint32_t mask)
{
    q4spv_module m;
    q4_error err = { 0 };
    uint32_t c = 0;
    ck_assert_int_eq(q4spv_parse(w, n, &m, &err), Q4_OK);
    for (size_t k = 0; k < m.n_insts; k++)
        c += m.insts[k].opcode == opcode && (!mask || (q4spv_word(&m, k, word) & mask));
    q4spv_module_free(&m);
    return c;
}

static uint32_t count_op(const uint32_t *w, size_t n, uint32_t opcode)
{
    return count_where(w, n, opcode, 0, 0);
}

/* Whether some block of the map has line `line`. */
static int map_has_line(const q4spv_map *map, uint32_t line)
{
    for (uint32_t i = 0; i < map->n_pos; i++)
        if (map->pos[i].line == line)
            return 1;
    return 0;
}

static const q4spv_options all = { .set = 1, .coverage = true, .bounds = true },
                           bounds_only = { .set = 1, .bounds = true };

/* A test module and its instrumented copy. */
typedef struct probed {
    uint32_t *w, *out;
    size_t n, n_out;
    q4spv_map *map;
} probed;

/* Q4SPV_TEST_SPV_DIR/file instrumented with o; asserts that the pass succeeds and that
 * its output validates. */
static probed instrument_file(const char *file, const q4spv_options *o)
{
    probed p;
    q4_error err = { 0 };
    p.w = spv_test_load(file, &p.n);
    ck_assert_msg(q4spv_instrument(p.w, p.n, o, &p.out, &p.n_out, &p.map, &err) == Q4_OK,
                  "%s: %s", file, err.msg);
    ck_assert_msg(q4spv_validate(p.out, p.n_out, file, &err) == Q4_OK, "%s", err.msg);
    return p;
}

static void probed_free(probed *p)
{
    free(p->out);
    free(p->w);
    q4spv_map_free(p->map);
}

START_TEST(builtin_kernels)
{
    int n_kernels;
    const q4vk_kernel *k = q4vk_kernels(&n_kernels);
    ck_assert_int_gt(n_kernels, 10);
    for (int i = 0; i < n_kernels; i++) {
        uint32_t *out;
        size_t n_out;
        q4spv_map *map;
        q4_error err = { 0 };
        q4_status st = q4spv_instrument(k[i].spirv, k[i].spirv_words, &all, &out, &n_out, &map,
                                        &err);
        ck_assert_msg(st == Q4_OK, "%s: %s", k[i].name, err.msg);
        ck_assert_msg(q4spv_validate(out, n_out, k[i].name, &err) == Q4_OK, "%s", err.msg);
        ck_assert_uint_eq(map->n_blocks, count_op(k[i].spirv, k[i].spirv_words, SpvOpLabel));
        ck_assert_uint_eq(map->n_branches,
                          count_op(k[i].spirv, k[i].spirv_words, SpvOpBranchConditional));
        /* Built with -g: the kernel's own file is among the files, and most blocks
         * have lines. */
        char want[128];
        snprintf(want, sizeof want, "/%s.comp", k[i].name);
        int own = 0;
        for (uint32_t f = 0; f < map->n_files; f++) {
            size_t lf = strlen(map->files[f]), lw = strlen(want);
            own |= lf > lw && !strcmp(map->files[f] + lf - lw, want);
        }
        ck_assert_msg(own, "%s: its .comp is not among the %u files", k[i].name, map->n_files);
        uint32_t with_lines = 0;
        for (uint32_t b = 0; b < map->n_blocks; b++)
            with_lines += map->blocks[b].n_pos > 0;
        ck_assert_msg(with_lines * 2 > map->n_blocks, "%s: %u of %u blocks have lines",
                      k[i].name, with_lines, map->n_blocks);
        /* Every access to a binding is understood: none is left unchecked; every
         * kernel stores its results into one. */
        ck_assert_msg(map->unchecked == 0, "%s: %u accesses unchecked", k[i].name,
                      map->unchecked);
        uint32_t stores = 0;
        for (uint32_t s = 0; s < map->n_sites; s++)
            stores += map->sites[s].access == Q4SPV_STORE;
        ck_assert_msg(stores > 0, "%s: no store site", k[i].name);
        for (uint32_t s = 0; s < map->n_sites; s++) {
            ck_assert_uint_lt(map->sites[s].binding, k[i].n_bindings);
            ck_assert_msg(map->sites[s].at.line > 0, "%s: access site %u has no line",
                          k[i].name, s);
        }
        ck_assert_uint_eq(map->n_slots, map->site_base + Q4SPV_SITE_WORDS * map->n_sites);
        free(out);
        q4spv_map_free(map);
    }
}
END_TEST

/* probe.comp's accesses, in program order: loads a[i].y (binding 0, line 19) and
 * s[i].y.x (binding 2, line 19), the store b[i] (binding 1, line 19), loads n
 * (binding 2, line 22) and b[j] (binding 1, line 23), the store b[i] (line 24). */
static void check_probe(const char *file, uint32_t version)
{
    probed p = instrument_file(file, &all);
    const q4spv_map *map = p.map;
    ck_assert_uint_eq(p.w[1], version);
    ck_assert_uint_eq(p.out[1], version);
    ck_assert_uint_gt(p.out[3], p.w[3]);
    static const uint32_t binding[6] = { 0, 2, 1, 2, 1, 1 },
                          line[6] = { 19, 19, 19, 22, 23, 24 };
    static const q4spv_access access[6] = { Q4SPV_LOAD, Q4SPV_LOAD, Q4SPV_STORE,
                                            Q4SPV_LOAD, Q4SPV_LOAD, Q4SPV_STORE };
    ck_assert_uint_eq(map->n_sites, 6);
    ck_assert_uint_eq(map->unchecked, 0);
    for (int s = 0; s < 6; s++) {
        ck_assert_uint_eq(map->sites[s].binding, binding[s]);
        ck_assert_uint_eq(map->sites[s].bytes, 4);
        ck_assert_uint_eq(map->sites[s].at.line, line[s]);
        ck_assert_int_eq(map->sites[s].access, access[s]);
    }
    ck_assert_uint_eq(map->n_branches, 2); /* the if and the loop's condition */
    for (uint32_t l = 17; l <= 24; l++) /* line 20 is "} else {" */
        ck_assert_msg(map_has_line(map, l) == (l != 20), "%s: line %u", file, l);
    probed_free(&p);
}

START_TEST(probe_spirv_1_0) { check_probe("probe-spv10.spv", 0x10000); }
END_TEST
START_TEST(probe_spirv_1_3) { check_probe("probe-spv13.spv", 0x10300); }
END_TEST
START_TEST(probe_spirv_1_5) { check_probe("probe-spv15.spv", 0x10500); }
END_TEST

/* probe_atomic.comp: an atomicAdd (count[i], line 13) and an atomicStore
 * (count[i + 1], line 14) are checked sites of 4 bytes each, named as atomics. */
START_TEST(atomics_are_sites)
{
    probed p = instrument_file("probe-atomic.spv", &bounds_only);
    const q4spv_map *map = p.map;
    ck_assert_uint_eq(map->n_sites, 2);
    ck_assert_uint_eq(map->unchecked, 0);
    for (uint32_t s = 0; s < 2; s++) {
        ck_assert_int_eq(map->sites[s].access, Q4SPV_ATOMIC);
        ck_assert_uint_eq(map->sites[s].binding, 0);
        ck_assert_uint_eq(map->sites[s].bytes, 4);
        ck_assert_uint_eq(map->sites[s].at.line, 13 + s);
    }
    probed_free(&p);
}
END_TEST

START_TEST(coverage_or_bounds_alone)
{
    static const q4spv_options cov = { .set = 1, .coverage = true };
    probed p = instrument_file("probe-spv13.spv", &cov);
    ck_assert_uint_gt(p.map->n_blocks, 4);
    ck_assert_uint_eq(p.map->n_sites, 0);
    probed_free(&p);

    p = instrument_file("probe-spv13.spv", &bounds_only);
    ck_assert_uint_eq(p.map->n_blocks, 0);
    ck_assert_uint_eq(p.map->n_branches, 0);
    ck_assert_uint_eq(p.map->n_sites, 6);
    ck_assert_uint_eq(p.map->limit_base, 0);
    probed_free(&p);
}
END_TEST

START_TEST(set_in_use_is_refused)
{
    size_t n, n_out;
    uint32_t *w = spv_test_load("set1.spv", &n), *out;
    q4spv_map *map;
    q4_error err = { 0 };
    ck_assert_int_eq(q4spv_instrument(w, n, &all, &out, &n_out, &map, &err), Q4_ERR_ARG);
    ck_assert_ptr_null(out);
    ck_assert_ptr_null(map);
    ck_assert_msg(strstr(err.msg, "descriptor set 1"), "%s", err.msg);
    free(w);
}
END_TEST

START_TEST(not_spirv_is_refused)
{
    static const uint32_t junk[8] = { 0x12345678u, 1, 2, 3, 4, 5, 6, 7 };
    uint32_t truncated[7];
    uint32_t *out;
    size_t n_out;
    q4spv_map *map;
    q4_error err = { 0 };
    ck_assert_int_eq(q4spv_instrument(junk, 8, &all, &out, &n_out, &map, &err), Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "not a SPIR-V module"), "%s", err.msg);
    /* A real header followed by an instruction whose word count runs past the end. */
    int n_kernels;
    const q4vk_kernel *k = q4vk_kernels(&n_kernels);
    memcpy(truncated, k[0].spirv, 5 * sizeof(uint32_t));
    truncated[5] = (9u << 16) | SpvOpCapability;
    truncated[6] = SpvCapabilityShader;
    ck_assert_int_eq(q4spv_instrument(truncated, 7, &all, &out, &n_out, &map, &err),
                     Q4_ERR_ARG);
    ck_assert_msg(strstr(err.msg, "cannot be parsed"), "%s", err.msg);
}
END_TEST

START_TEST(probe_init_and_first_oob)
{
    probed p = instrument_file("probe-spv13.spv", &all);
    const q4spv_map *map = p.map;
    uint32_t *slots = malloc(map->n_slots * sizeof *slots);
    uint32_t limits[Q4SPV_MAX_BINDINGS] = { 160, 40, 88, Q4SPV_NONE, Q4SPV_NONE, Q4SPV_NONE,
                                            Q4SPV_NONE, Q4SPV_NONE };
    memset(slots, 0xAB, map->n_slots * sizeof *slots);
    q4spv_probe_init(map, limits, slots);
    for (uint32_t i = 0; i < map->limit_base; i++)
        ck_assert_uint_eq(slots[i], 0);
    for (int b = 0; b < Q4SPV_MAX_BINDINGS; b++)
        ck_assert_uint_eq(slots[map->limit_base + b], limits[b]);
    uint32_t off = 7;
    ck_assert_int_eq(q4spv_probe_first_oob(map, slots, &off), -1);
    ck_assert_uint_eq(off, 7);
    for (uint32_t i = 0; i < map->n_sites; i++)
        ck_assert_uint_eq(q4spv_probe_oob(map, slots, i, NULL), 0);
    uint32_t *site3 = slots + q4spv_site_slot(map, 3), *site1 = slots + q4spv_site_slot(map, 1);
    site3[0] = 44, site3[1] = 5;
    site1[0] = 96, site1[1] = 2;
    ck_assert_int_eq(q4spv_probe_first_oob(map, slots, &off), 1);
    ck_assert_uint_eq(off, 96);
    ck_assert_uint_eq(q4spv_probe_oob(map, slots, 3, &off), 5);
    ck_assert_uint_eq(off, 44);
    site1[1] = 0;   /* a count that wrapped past 2^32 accesses still counts one */
    ck_assert_uint_eq(q4spv_probe_oob(map, slots, 1, NULL), 1);
    free(slots);
    probed_free(&p);
}
END_TEST

/* Race probes: every built-in kernel with shared memory, and a test module of SPIR-V
 * 1.0 (Uniform + BufferBlock), 1.3 and 1.5 (entry points list every global), come out
 * valid, with one site per shared access and its line; kernels without shared memory
 * are left without race probes. */
START_TEST(race_probes)
{
    static const q4spv_options race = { .set = 1, .race = true };
    int n_kernels;
    const q4vk_kernel *k = q4vk_kernels(&n_kernels);
    int with_shared = 0;
    for (int i = 0; i < n_kernels; i++) {
        uint32_t *out;
        size_t n_out;
        q4spv_map *map;
        q4_error err = { 0 };
        ck_assert_msg(q4spv_instrument(k[i].spirv, k[i].spirv_words, &race, &out, &n_out, &map,
                                       &err) == Q4_OK, "%s: %s", k[i].name, err.msg);
        ck_assert_msg(q4spv_validate(out, n_out, k[i].name, &err) == Q4_OK, "%s", err.msg);
        if (map->n_race_vars) {
            with_shared++;
            ck_assert_uint_gt(map->n_race_sites, 0);
            ck_assert_uint_eq(map->n_slots, map->race_base + 4 + Q4SPV_RACE_RECORD +
                                                Q4SPV_RACE_REPORT * (map->n_race_sites + 1));
        } else {
            ck_assert_uint_eq(map->n_race_sites, 0);
            ck_assert_uint_eq(q4spv_race_buffer_words(map, 32, 100), map->n_slots);
        }
        free(out);
        q4spv_map_free(map);
    }
    ck_assert_int_ge(with_shared, 8);
    static const char *const files[] = { "race-spv10.spv", "race-spv13.spv", "race-spv15.spv" };
    for (int f = 0; f < 3; f++) {
        probed p = instrument_file(files[f], &race);
        ck_assert_uint_eq(p.map->n_race_vars, 1);
        ck_assert_str_eq(p.map->race_vars[0], "s");
        ck_assert_uint_eq(p.map->race_words, 1);
        ck_assert_uint_eq(p.map->race_unchecked, 0);
        /* s[0] = 0; atomicAdd(s[0]); v = s[0]; ... + s[0] */
        ck_assert_uint_eq(p.map->n_race_sites, 4);
        ck_assert_int_eq(p.map->race_sites[0].cls, Q4SPV_RACE_WRITE);
        ck_assert_int_eq(p.map->race_sites[1].cls, Q4SPV_RACE_ATOMIC_WRITE);
        ck_assert_int_eq(p.map->race_sites[2].cls, Q4SPV_RACE_READ);
        ck_assert_uint_eq(p.map->race_sites[1].at.line, 21);
        /* a finding reads back as a sentence */
        uint32_t *slots = calloc(q4spv_race_buffer_words(p.map, 2, 1), 4);
        ck_assert(slots);
        q4spv_probe_init(p.map, NULL, slots);
        q4spv_race_init(p.map, 2, 1, slots);
        q4spv_race_finding fd;
        ck_assert_int_eq(q4spv_race_first(p.map, slots, &fd), -1);
        uint32_t *r = slots + slots[p.map->race_base + 2] + Q4SPV_RACE_REPORT * 2;
        r[0] = 1 + Q4SPV_RACE_ATOMIC_WRITE;   /* the read (site 2) met an atomic write */
        r[1] = 0;
        r[2] = 0 | 63u << 16;
        r[3] = 1u << 16 | 3;
        r[4] = 0u << 16 | 2;                  /* site 1, position 0 */
        ck_assert_int_eq(q4spv_race_first(p.map, slots, &fd), 2);
        char msg[512];
        q4spv_race_message(p.map, &fd, msg, sizeof msg);
        ck_assert_msg(strstr(msg, "read-after-write race on shared s word 0: invocation 0's "
                                  "read at race.comp:24 and invocation 63's atomic write at "
                                  "race.comp:21"), "%s", msg);
        free(slots);
        probed_free(&p);
    }
}
END_TEST

/* The OpLoopMerges whose loop control has a bit of `mask`. */
static uint32_t count_loops_with(const uint32_t *w, size_t n, uint32_t mask)
{
    return count_where(w, n, SpvOpLoopMerge, 3, mask);
}

/* Race probes roll a loop that accesses shared memory (lavapipe's LLVM compiled an
 * unrolled probed GEMM for minutes) and leave every other loop's control alone. */
START_TEST(race_probes_keep_shared_loops_rolled)
{
    static const q4spv_options race = { .set = 1, .race = true };
    int n_kernels, checked = 0;
    const q4vk_kernel *k = q4vk_kernels(&n_kernels);
    for (int i = 0; i < n_kernels; i++) {
        if (strcmp(k[i].name, "linear_dw_tiled") && strcmp(k[i].name, "fused_ce"))
            continue;
        uint32_t *out, *plain;
        size_t n_out, n_plain;
        q4spv_map *map, *plain_map;
        q4_error err = { 0 };
        ck_assert_int_eq(q4spv_instrument(k[i].spirv, k[i].spirv_words, &race, &out, &n_out,
                                          &map, &err), Q4_OK);
        ck_assert_int_eq(q4spv_instrument(k[i].spirv, k[i].spirv_words, &all, &plain,
                                          &n_plain, &plain_map, &err), Q4_OK);
        uint32_t unroll = count_loops_with(k[i].spirv, k[i].spirv_words,
                                           SpvLoopControlUnrollMask);
        uint32_t rolled = count_loops_with(out, n_out, SpvLoopControlDontUnrollMask);
        ck_assert_uint_eq(count_loops_with(k[i].spirv, k[i].spirv_words,
                                           SpvLoopControlDontUnrollMask), 0);
        ck_assert_msg(rolled > 0, "%s: no shared-memory loop rolled", k[i].name);
        /* no loop is marked both ways */
        ck_assert_uint_eq(count_loops_with(out, n_out, SpvLoopControlUnrollMask |
                                                           SpvLoopControlDontUnrollMask),
                          count_loops_with(out, n_out, SpvLoopControlUnrollMask) + rolled);
        if (!strcmp(k[i].name, "linear_dw_tiled")) {
            /* its staging and inner loops roll; its FMA and fetch loops still unroll */
            ck_assert_uint_lt(count_loops_with(out, n_out, SpvLoopControlUnrollMask), unroll);
            ck_assert_uint_gt(count_loops_with(out, n_out, SpvLoopControlUnrollMask), 0);
        }
        /* coverage and bounds probes change no loop */
        ck_assert_uint_eq(count_loops_with(plain, n_plain, SpvLoopControlDontUnrollMask), 0);
        ck_assert_uint_eq(count_loops_with(plain, n_plain, SpvLoopControlUnrollMask), unroll);
        free(out);
        free(plain);
        q4spv_map_free(map);
        q4spv_map_free(plain_map);
        checked++;
    }
    ck_assert_int_eq(checked, 2);
}
END_TEST

/* The race probe of probed module m: the callee of 7 arguments (0 if none is called). */
static uint32_t race_probe_fn(const q4spv_module *m)
{
    for (size_t j = 0; j < m->n_insts; j++)
        if (m->insts[j].opcode == SpvOpFunctionCall && m->insts[j].count == 4 + 7)
            return q4spv_word(m, j, 3);
    return 0;
}

/* How many calls of fn module m makes. */
static uint32_t calls_of(const q4spv_module *m, uint32_t fn)
{
    uint32_t c = 0;
    for (size_t j = 0; j < m->n_insts; j++)
        c += m->insts[j].opcode == SpvOpFunctionCall && q4spv_word(m, j, 3) == fn;
    return c;
}

/* In probed module w: whether function fn calls the race probe (the callee of 7
 * arguments whose body has atomics), itself or through calls, depth levels deep. */
static bool calls_probe(const q4spv_module *m, uint32_t fn, uint32_t probe, int depth)
{
    uint32_t cur = 0;
    for (size_t k = 0; k < m->n_insts && depth > 0; k++) {
        uint32_t op = m->insts[k].opcode;
        if (op == SpvOpFunction)
            cur = m->insts[k].result_id;
        else if (cur == fn && op == SpvOpFunctionCall &&
                 (q4spv_word(m, k, 3) == probe || calls_probe(m, q4spv_word(m, k, 3), probe,
                                                              depth - 1)))
            return true;
    }
    return false;
}

/* No loop that the driver is asked to unroll holds a race probe, directly or in a
 * function it calls (which the driver inlines): the probes' code is what lavapipe's
 * compile time grows with (Mesa 25's LLVM took 65-131 s for one probed GEMM whose
 * tile stores, helper functions, were called in unrolled loops). */
START_TEST(race_probes_not_in_unrolled_loops)
{
    static const q4spv_options race = { .set = 1, .race = true };
    static const char *const gemms[] = { "linear_q4gsw_tiled", "linear_q4gsw_backward_tiled",
                                         "linear_dw_tiled", "fused_ce" };
    int n_kernels, checked = 0;
    const q4vk_kernel *k = q4vk_kernels(&n_kernels);
    for (int i = 0; i < n_kernels; i++) {
        bool want = false;
        for (size_t g = 0; g < sizeof gemms / sizeof gemms[0]; g++)
            want |= !strcmp(k[i].name, gemms[g]);
        if (!want)
            continue;
        uint32_t *out;
        size_t n_out;
        q4spv_map *map;
        q4_error err = { 0 };
        q4spv_module m;
        ck_assert_int_eq(q4spv_instrument(k[i].spirv, k[i].spirv_words, &race, &out, &n_out,
                                          &map, &err), Q4_OK);
        ck_assert_int_eq(q4spv_parse(out, n_out, &m, &err), Q4_OK);
        uint32_t probe = race_probe_fn(&m);
        ck_assert_msg(probe, "%s: no race probe call", k[i].name);
        for (size_t j = 0; j < m.n_insts; j++) {
            if (m.insts[j].opcode != SpvOpLoopMerge ||
                !(q4spv_word(&m, j, 3) & SpvLoopControlUnrollMask))
                continue;
            uint32_t merge = q4spv_word(&m, j, 1);
            for (size_t l = j + 1; l < m.n_insts; l++) {
                uint32_t op = m.insts[l].opcode;
                if (op == SpvOpFunctionEnd || (op == SpvOpLabel && q4spv_word(&m, l, 1) == merge))
                    break;
                if (op == SpvOpFunctionCall)
                    ck_assert_msg(q4spv_word(&m, l, 3) != probe &&
                                  !calls_probe(&m, q4spv_word(&m, l, 3), probe, 8),
                                  "%s: an unrolled loop holds a race probe", k[i].name);
            }
        }
        /* a call per word: more calls than sites, the probe has no loop; with
         * race_word_loop one call per site, and the probe one loop */
        uint32_t per_word = calls_of(&m, probe);
        if (strcmp(k[i].name, "fused_ce"))   /* the GEMMs' tiles move vec4s */
            ck_assert_uint_gt(per_word, map->n_race_sites);
        else
            ck_assert_uint_eq(per_word, map->n_race_sites);
        uint32_t rolled = count_loops_with(out, n_out, SpvLoopControlDontUnrollMask);
        q4spv_module_free(&m);
        free(out);
        q4spv_map_free(map);
        q4spv_options looped = race;
        looped.race_word_loop = true;
        ck_assert_int_eq(q4spv_instrument(k[i].spirv, k[i].spirv_words, &looped, &out, &n_out,
                                          &map, &err), Q4_OK);
        ck_assert_int_eq(q4spv_parse(out, n_out, &m, &err), Q4_OK);
        ck_assert_uint_eq(calls_of(&m, race_probe_fn(&m)), map->n_race_sites);
        ck_assert_uint_eq(count_loops_with(out, n_out, SpvLoopControlDontUnrollMask), rolled + 1);
        q4spv_module_free(&m);
        free(out);
        q4spv_map_free(map);
        checked++;
    }
    ck_assert_int_eq(checked, 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("q4spv_instrument");
    TCase *tc = tcase_create("instrument");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, builtin_kernels);
    tcase_add_test(tc, probe_spirv_1_0);
    tcase_add_test(tc, probe_spirv_1_3);
    tcase_add_test(tc, probe_spirv_1_5);
    tcase_add_test(tc, atomics_are_sites);
    tcase_add_test(tc, coverage_or_bounds_alone);
    tcase_add_test(tc, set_in_use_is_refused);
    tcase_add_test(tc, not_spirv_is_refused);
    tcase_add_test(tc, probe_init_and_first_oob);
    tcase_add_test(tc, race_probes);
    tcase_add_test(tc, race_probes_keep_shared_loops_rolled);
    tcase_add_test(tc, race_probes_not_in_unrolled_loops);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
