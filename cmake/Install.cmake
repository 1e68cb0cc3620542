# Installing libpolysi, its headers and the polysi-solve program:
#   cmake --install BUILD [--prefix P]   (DESTDIR works as usual) puts
#     P/lib/libpolysi.a             (libpolysi.so* with -DBUILD_SHARED_LIBS=ON)
#     P/include/polysi/polysi.h     the umbrella header (polysi.h at the root)
#     P/include/polysi/core/history.h, .../check/check.h, ...   public headers
#     P/lib/pkgconfig/polysi.pc     for `pkg-config polysi` (cmake/polysi.pc.in)
#     P/bin/polysi-solve
# The library is the `psi` target (other CMake files link it by that name);
# only its file is called libpolysi. It never contains workload/ (libpq).
include(GNUInstallDirs)

# The public headers, installed under include/polysi/ in their folders.
# Which rule decides: a header is public when a library user needs it to call
# the library -- reading and writing histories, the check, counterexamples,
# witnesses, the solver on its own -- or when a public header includes it
# (check/check.h includes prune/prune.h and core/polygraph.h, so those are
# public too). Every other header is internal to the library and is not
# installed (today core/vec.h, prune/reach.h, prune/seed.h, encode/encode.h,
# interpret/local.h, solver/internal.h, solver/vec.h).
# Making a header public is one line here plus its #include in polysi.h;
# tests/layout fails when the two disagree or when a public header includes
# one that is not listed (the installed tree would not compile).
set(PSI_PUBLIC_HEADERS
  core/clock.h
  core/diag.h
  core/history.h
  core/index.h
  core/polygraph.h
  core/progress.h
  formats/locate.h
  formats/read.h
  formats/timestamps.h
  formats/witness.h
  formats/write.h
  prune/prune.h
  check/check.h
  check/hints.h
  check/timestamps.h
  check/level.h
  check/level_choice.h
  check/realtime.h
  interpret/all.h
  interpret/describe.h
  interpret/explain.h
  interpret/hint_file.h
  interpret/render.h
  interpret/summary.h
  interpret/witness.h
  interpret/witness_check.h
  interpret/witness_level.h
  solver/acyclic.h
  solver/dimacs.h
  solver/sat.h
  solver/theory.h
)

set_target_properties(psi PROPERTIES
  OUTPUT_NAME polysi
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR})

if(BUILD_SHARED_LIBS)
  # The installed program finds the installed libpolysi.so wherever the
  # prefix is: relative to its own location.
  file(RELATIVE_PATH psi_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(polysi-solve PROPERTIES INSTALL_RPATH "$ORIGIN/${psi_bin_to_lib}")
endif()

install(TARGETS psi polysi-solve
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(header ${PSI_PUBLIC_HEADERS})
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/polysi/${folder})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/polysi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/polysi)

# polysi.pc names its directories relative to its own location (pkg-config's
# ${pcfiledir}), so it stays right under `cmake --install --prefix` and when
# the installed tree is moved.
file(RELATIVE_PATH PSI_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH PSI_PC_TO_INCLUDEDIR ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_FULL_INCLUDEDIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/polysi.pc.in ${PROJECT_BINARY_DIR}/polysi.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/polysi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
