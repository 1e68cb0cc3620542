# Finds libjudy (and, for tests, cmocka). Each failure names the Debian package
# to install, because that is the question a user has at that moment.
find_path(JUDY_INCLUDE_DIR Judy.h)
find_library(JUDY_LIBRARY NAMES Judy)
if(NOT JUDY_INCLUDE_DIR OR NOT JUDY_LIBRARY)
  message(FATAL_ERROR
    "libjudy not found. On Debian/Ubuntu: apt-get install libjudy-dev "
    "(or run ./dev.sh setup, which installs everything).")
endif()
add_library(Judy::Judy UNKNOWN IMPORTED)
set_target_properties(Judy::Judy PROPERTIES
  IMPORTED_LOCATION "${JUDY_LIBRARY}"
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${JUDY_INCLUDE_DIR}")

if(PSI_TESTS)
  find_path(CMOCKA_INCLUDE_DIR cmocka.h)
  find_library(CMOCKA_LIBRARY NAMES cmocka)
  if(NOT CMOCKA_INCLUDE_DIR OR NOT CMOCKA_LIBRARY)
    message(FATAL_ERROR
      "cmocka not found. On Debian/Ubuntu: apt-get install libcmocka-dev "
      "(or configure with -DPSI_TESTS=OFF to build without the tests).")
  endif()
  add_library(cmocka::cmocka UNKNOWN IMPORTED)
  set_target_properties(cmocka::cmocka PROPERTIES
    IMPORTED_LOCATION "${CMOCKA_LIBRARY}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${CMOCKA_INCLUDE_DIR}")
endif()
