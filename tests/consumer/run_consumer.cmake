# Configures, builds and runs the consumer project in one MODE.
file(REMOVE_RECURSE "${BINARY}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}" -DMODE=${MODE}
          -DNAPKIN_SOURCE=${NAPKIN_SOURCE} -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX}
          -DCMAKE_BUILD_TYPE=Release
  RESULT_VARIABLE configured)
if(NOT configured EQUAL 0)
  message(FATAL_ERROR "consumer (${MODE}) did not configure")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY}" RESULT_VARIABLE built)
if(NOT built EQUAL 0)
  message(FATAL_ERROR "consumer (${MODE}) did not build")
endif()
execute_process(COMMAND "${BINARY}/consumer" RESULT_VARIABLE ran)
if(NOT ran EQUAL 0)
  message(FATAL_ERROR "consumer (${MODE}) printed the wrong numbers")
endif()
