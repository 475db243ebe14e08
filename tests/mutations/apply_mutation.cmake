# apply_mutation.cmake: writes OUT, the built-in kernel named by MUT's "kernel:" line
# with each "replace:" line's text replaced by the following "with:" line's text.
# An "inline:" line pastes an include file of the kernel in place of its #include,
# so that a replacement can reach shared code. "\n" in a "with:" text is a newline.
# A replace text that no longer occurs in the kernel is an error, so a mutation can
# never silently turn into an unmodified copy of the kernel.
#   cmake -DMUT=file.mutation -DSHADERS=gpu/shaders -DOUT=file.comp -P apply_mutation.cmake
# -DEXT=wgsl mutates a WGSL kernel of gpu/wgsl (SHADERS=gpu/wgsl) instead: its include
# lines are "//!include NAME" (docs/webgpu.md).
# A mutation of several kernels (a bug they agree on, such as a layout written and read
# the same wrong way) has one "kernel:" line per kernel, each followed by its own lines;
# -DKERNEL=NAME writes that kernel's mutant.
# Lines are split by hand: file(STRINGS) would also split them at every ';'.
if(NOT EXT)
  set(EXT comp)
endif()
file(READ ${MUT} raw)
string(REPLACE ";" "<semicolon>" raw "${raw}")
string(REPLACE "\n" ";" lines "${raw}")
set(from "")
set(kernels "")
set(active FALSE)
foreach(line IN LISTS lines)
  string(REPLACE "<semicolon>" ";" line "${line}")
  if(line MATCHES "^kernel: *(.+)$")
    list(APPEND kernels ${CMAKE_MATCH_1})
    set(active FALSE)
    if(NOT KERNEL OR KERNEL STREQUAL CMAKE_MATCH_1)
      set(kernel ${CMAKE_MATCH_1})
      set(active TRUE)
      file(READ ${SHADERS}/${kernel}.${EXT} text)
    endif()
  elseif(NOT active)
    continue()
  elseif(line MATCHES "^inline: *(.+)$")
    file(READ ${SHADERS}/${CMAKE_MATCH_1} included)
    if(EXT STREQUAL "wgsl")
      string(REPLACE "//!include ${CMAKE_MATCH_1}" "${included}" text "${text}")
    else()
      string(REPLACE "#include \"${CMAKE_MATCH_1}\"" "${included}" text "${text}")
    endif()
  elseif(line MATCHES "^replace: (.+)$")
    set(from "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^with: (.*)$")
    string(FIND "${text}" "${from}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${MUT}: '${from}' does not occur in ${kernel}.${EXT}; update the mutation")
    endif()
    string(REPLACE "\\n" "\n" to "${CMAKE_MATCH_1}")
    string(REPLACE "${from}" "${to}" text "${text}")
  endif()
endforeach()
if(NOT kernel)
  message(FATAL_ERROR "${MUT}: no 'kernel: ${KERNEL}' line")
endif()
list(LENGTH kernels n_kernels)
if(n_kernels GREATER 1 AND NOT KERNEL)
  message(FATAL_ERROR "${MUT}: mutates ${n_kernels} kernels; say which with -DKERNEL=NAME")
endif()
file(WRITE ${OUT} "${text}")
