# coverage_gate.awk -v allowfile=ALLOWLIST -v class=CLASS INFO...: the shader-coverage
# gate over lcov tracefiles of one device class (test_shader_coverage.sh says the rules;
# test_coverage_gate.sh checks them on made-up tracefiles). Exit 1 on any failure.
BEGIN {
  bad = 0
  while ((getline line < allowfile) > 0) {
    if (line ~ /^[ \t]*(#|$)/) continue
    n = split(line, f, /[ \t]+/)
    classes = ""
    if (f[2] ~ /^@/) { classes = "," substr(f[2], 2) ","; reason = f[3] } else reason = f[2]
    if (n < 2 || reason == "") { print "FAIL: allowlist entry without a reason: " line; bad = 1 }
    listed[f[1]] = 1
    if (classes == "" || index(classes, "," class ",")) allowed[f[1]] = 1
  }
}
# Each kernel of the runs (a source under gpu/shaders/, wherever the tree was built):
# a line ran when it ran in any run.
/^SF:/ { file = substr($0, 4); own = file ~ /\/gpu\/shaders\/[^\/]+$/; base = file; sub(/.*\//, "", base) }
/^DA:/ && own {
  split(substr($0, 4), d, ",")
  key = base ":" d[1]
  if (!(key in count)) order[++lines] = key
  count[key] += d[2]
}
END {
  for (i = 1; i <= lines; i++) {
    key = order[i]
    if (count[key] == 0) missed++
    if (count[key] == 0 && !(key in allowed)) { print "FAIL: " key " never ran and is not in the allowlist"; bad = 1 }
    if (count[key] != 0 && (key in allowed)) { print "FAIL: " key " runs now on " class ": remove it from the allowlist (or from this class)"; bad = 1 }
  }
  if (lines == 0) { print "FAIL: the runs recorded no line of any kernel under gpu/shaders/"; bad = 1 }
  for (k in listed) if (!(k in count)) { print "FAIL: allowlist entry " k " is not a line of any kernel"; bad = 1 }
  printf "gate (%s): %d GLSL lines, %d not run (all in the allowlist: %s)\n", class, lines, missed, bad ? "no" : "yes"
  exit bad
}
