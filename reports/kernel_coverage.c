/* kernel_coverage.c: a run's shader coverage per kernel, rendered for the file sinks:
 * JUnit properties ("shader_coverage.<kernel>" = "lines H/T, branches H/T, blocks H/T")
 * and the JSON "shader_coverage" array. The sinks keep the rendering and put it into
 * every later write of their document. */
#include "q4report_internal.h"

int q4rep_coverage_junit(q4rep_buf *b, const q4_kernel_coverage *k, size_t n)
{
    q4rep_buf_reset(b);
    for (size_t i = 0; i < n; i++) {
        q4rep_buf_puts(b, "      <property name=\"shader_coverage.");
        q4rep_xml_attr(b, k[i].kernel ? k[i].kernel : "", Q4REP_NOMAX);
        q4rep_buf_printf(b, "%s\" value=\"lines %u/%u, branches %u/%u, blocks %u/%u\"/>\n",
                         k[i].overridden ? ".override" : "", k[i].lines_hit, k[i].lines,
                         k[i].branches_hit, k[i].branches, k[i].blocks_hit, k[i].blocks);
    }
    return b->failed ? -1 : 0;
}

int q4rep_coverage_json(q4rep_buf *b, const q4_kernel_coverage *k, size_t n)
{
    q4rep_buf_reset(b);
    q4rep_buf_puts(b, "[");
    for (size_t i = 0; i < n; i++) {
        q4rep_buf_puts(b, i ? ",\n    {\"kernel\": " : "\n    {\"kernel\": ");
        q4rep_json_str(b, k[i].kernel ? k[i].kernel : "", Q4REP_NOMAX);
        q4rep_buf_printf(b, ", \"override\": %s, \"lines\": %u, \"lines_hit\": %u, "
                         "\"branches\": %u, \"branches_hit\": %u, \"blocks\": %u, "
                         "\"blocks_hit\": %u}",
                         k[i].overridden ? "true" : "false", k[i].lines, k[i].lines_hit,
                         k[i].branches, k[i].branches_hit, k[i].blocks, k[i].blocks_hit);
    }
    q4rep_buf_puts(b, n ? "\n  ]" : "]");
    return b->failed ? -1 : 0;
}
