# nlohmann/json for the WebAssembly build (the "wasm" preset points
# nlohmann_json_DIR here): header-only, exposed through a folder holding one
# link, nlohmann -> the host's headers, for the same reason as BoostConfig.cmake.
set(_napkin_host_json "/usr/include/nlohmann")
if(NOT EXISTS "${_napkin_host_json}/json.hpp")
  set(nlohmann_json_FOUND FALSE)
  set(nlohmann_json_NOT_FOUND_MESSAGE "nlohmann/json.hpp not found under /usr/include (apt-get install nlohmann-json3-dev)")
  return()
endif()
set(_napkin_shim "${CMAKE_BINARY_DIR}/host-headers")
file(MAKE_DIRECTORY "${_napkin_shim}")
if(NOT EXISTS "${_napkin_shim}/nlohmann")
  file(CREATE_LINK "${_napkin_host_json}" "${_napkin_shim}/nlohmann" SYMBOLIC)
endif()
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_napkin_shim}")
endif()
set(nlohmann_json_FOUND TRUE)
