# Packaging for `make install` / `cmake --install`: the CMake package
# (PREFIX/lib/cmake/amber: find_package(amber), amber::amber,
# amber_instrument()) and the pkg-config file (PREFIX/lib/pkgconfig/amber.pc).
# Both locate the prefix relative to where they are installed, so an install
# tree can be moved, and `cmake --install --prefix DIR` needs no re-configure.
include(CMakePackageConfigHelpers)

set(AMBER_CMAKE_DIR lib/cmake/amber)
set(AMBER_PKG_DIR ${CMAKE_BINARY_DIR}/package)

# amber::amber: libamber.so with amber.h's directory (runtime/CMakeLists.txt).
install(EXPORT amberTargets NAMESPACE amber:: DESTINATION ${AMBER_CMAKE_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/amberConfig.cmake.in
  ${AMBER_PKG_DIR}/amberConfig.cmake
  INSTALL_DESTINATION ${AMBER_CMAKE_DIR}
  NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
# 0.x: a project asking for 0.1 gets 0.1.*, never 0.2.
write_basic_package_version_file(
  ${AMBER_PKG_DIR}/amberConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${AMBER_PKG_DIR}/amberConfig.cmake ${AMBER_PKG_DIR}/amberConfigVersion.cmake
        DESTINATION ${AMBER_CMAKE_DIR})

configure_file(${CMAKE_CURRENT_LIST_DIR}/amber.pc.in ${AMBER_PKG_DIR}/amber.pc @ONLY)
install(FILES ${AMBER_PKG_DIR}/amber.pc DESTINATION lib/pkgconfig)
