/* props.c: the run's properties (the harness's key/value pairs: device, driver, seed...)
 * as the file sinks write them: JUnit <property/> lines and a JSON object. A prop with
 * no key is passed over; a NULL value is written as "". */
#include "q4report_internal.h"

int q4rep_props_junit(q4rep_buf *b, const q4_prop *props, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!props[i].key)
            continue;
        q4rep_buf_puts(b, "      <property name=\"");
        q4rep_xml_attr(b, props[i].key, Q4REP_NOMAX);
        q4rep_buf_puts(b, "\" value=\"");
        q4rep_xml_attr(b, props[i].value ? props[i].value : "", Q4REP_NOMAX);
        q4rep_buf_puts(b, "\"/>\n");
    }
    return b->failed ? -1 : 0;
}

int q4rep_props_json(q4rep_buf *b, const q4_prop *props, size_t n)
{
    int any = 0;
    q4rep_buf_puts(b, "{");
    for (size_t i = 0; i < n; i++) {
        if (!props[i].key)
            continue;
        q4rep_buf_puts(b, any ? ",\n    " : "\n    ");
        q4rep_json_str(b, props[i].key, Q4REP_NOMAX);
        q4rep_buf_puts(b, ": ");
        q4rep_json_str(b, props[i].value ? props[i].value : "", Q4REP_NOMAX);
        any = 1;
    }
    q4rep_buf_puts(b, any ? "\n  }" : "}");
    return b->failed ? -1 : 0;
}
