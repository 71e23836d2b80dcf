# Boost for the WebAssembly build (the "wasm" preset points Boost_DIR here).
#
# emscripten's sysroot does not see /usr/include, and adding all of /usr/include
# would pull the host's C library into the wasm build. napkin needs Boost's
# headers only (Boost.Units), so this exposes them alone: a folder holding one
# link, boost -> the host's Boost headers.
set(_napkin_host_boost "/usr/include/boost")
if(NOT EXISTS "${_napkin_host_boost}/version.hpp")
  set(Boost_FOUND FALSE)
  set(Boost_NOT_FOUND_MESSAGE "Boost headers not found at ${_napkin_host_boost} (apt-get install libboost-dev)")
  return()
endif()
set(_napkin_shim "${CMAKE_BINARY_DIR}/host-headers")
file(MAKE_DIRECTORY "${_napkin_shim}")
if(NOT EXISTS "${_napkin_shim}/boost")
  file(CREATE_LINK "${_napkin_host_boost}" "${_napkin_shim}/boost" SYMBOLIC)
endif()
if(NOT TARGET Boost::headers)
  add_library(Boost::headers INTERFACE IMPORTED)
  set_target_properties(Boost::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_napkin_shim}")
endif()
set(Boost_FOUND TRUE)
