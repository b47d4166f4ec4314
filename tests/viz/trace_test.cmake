# "snetmon render" on real trace directories written by the monitor's fixture
# writer: the adapter from the trace reader, a truncated log, the network
# from stream events. Invoked by CTest with -DSNETMON= -DFIXTURE= -DWORK=.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run_ok out_var err_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

# 3 workers x 3000 events: 4500 dispatch/block pairs = 4500 periods
run_ok(out err ${FIXTURE} many ${WORK}/many 3000)
run_ok(out err ${SNETMON} render ${WORK}/many -o ${WORK}/many.png)
if(NOT out MATCHES "3 workers, 4500 periods")
  message(FATAL_ERROR "full trace: ${out}")
endif()

# cut worker-1's log in the middle: refused (exit 1, file and offset, no
# image); with --partial it renders what is there, warns, and says so in
# the title
file(COPY ${WORK}/many/ DESTINATION ${WORK}/cut)
file(SIZE ${WORK}/cut/ctf/worker-1 size)
math(EXPR half "${size} / 2")
execute_process(COMMAND truncate -s ${half} ${WORK}/cut/ctf/worker-1 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot truncate the copy")
endif()
execute_process(COMMAND ${SNETMON} render ${WORK}/cut -o ${WORK}/refused.svg
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "worker-1: truncated: the file ends at byte ${half}"
   OR EXISTS ${WORK}/refused.svg)
  message(FATAL_ERROR "truncated trace without --partial: exit ${rc}: ${err}")
endif()
run_ok(out err ${SNETMON} render --partial ${WORK}/cut -o ${WORK}/cut.svg)
if(NOT err MATCHES "warning: partial trace: .*worker-1: truncated")
  message(FATAL_ERROR "truncated trace: no warning naming worker-1: ${err}")
endif()
file(READ ${WORK}/cut.svg svg)
if(NOT svg MATCHES "partial trace: [a-z0-9 ]+ events and [0-9]+ bytes lost \\(worker 1 truncated\\)")
  message(FATAL_ERROR "the partial image does not say what was lost")
endif()
string(REGEX MATCH "3 workers, ([0-9]+) periods" m "${out}")
if(NOT m OR CMAKE_MATCH_1 LESS 3000 OR NOT CMAKE_MATCH_1 LESS 4500)
  message(FATAL_ERROR "truncated trace: want 3000..4499 periods: ${out}")
endif()

# every event kind: task names from task_map, streams from stream events
run_ok(out err ${FIXTURE} kinds ${WORK}/kinds)
run_ok(out err ${SNETMON} render --graph ${WORK}/kinds -o ${WORK}/kinds.dot)
file(READ ${WORK}/kinds.dot dot)
foreach(want "label=\"S1:P0:box.a\"" "label=\"S1:P1:box.b\"" "t3 -> t1" "t103 -> t101")
  string(FIND "${dot}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "kinds.dot lacks ${want}:\n${dot}")
  endif()
endforeach()
if(dot MATCHES "outside_input -> outside_output")
  message(FATAL_ERROR "a stream with known ends drawn outside-to-outside:\n${dot}")
endif()
run_ok(out err ${SNETMON} render ${WORK}/kinds -o ${WORK}/kinds.png)
if(NOT out MATCHES "2 workers, 4 periods, 2 waits, 4 messages")
  message(FATAL_ERROR "kinds trace: ${out}")
endif()

# a directory that is not a trace: one-line error, non-zero exit
file(MAKE_DIRECTORY ${WORK}/empty)
execute_process(COMMAND ${SNETMON} render ${WORK}/empty -o ${WORK}/x.png
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "empty")
  message(FATAL_ERROR "not-a-trace: exit ${rc}: ${err}")
endif()
