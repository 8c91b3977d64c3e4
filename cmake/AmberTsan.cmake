# lib/tsan/libamber.so: the runtime built for ThreadSanitizer, for test/tsan
# (DEVELOPERS.md, "ThreadSanitizer").  Included from runtime/CMakeLists.txt.
#
# The runtime's sources are instrumented; the interceptors of wrappers/ are
# not (the same objects as libamber.so's): they sit between the program and
# TSan's own interceptors and run before TSan is initialised (glibc's dlsym
# frees through our `free` while TSan starts), where instrumented code
# crashes.  The library is linked against TSan's shared runtime
# (-shared-libsan) and must come before it in the lookup order (LD_PRELOAD,
# as tools/amber-run does), so that the chain is program -> amber -> TSan ->
# libc and the runtime's own calls (real.c's RTLD_NEXT) reach TSan's
# interceptors: its mutexes, threads and signals are then seen.  With TSan
# linked statically into the program (plain -fsanitize=thread) TSan's
# interceptors come first and the runtime's calls bypass them.
#
# Built when clang links -fsanitize=thread -shared-libsan (libclang-rt-16-dev);
# else test/tsan is unsupported.
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=thread -shared-libsan")
check_c_source_compiles("int main(void) { return 0; }" AMBER_HAVE_TSAN)
unset(CMAKE_REQUIRED_FLAGS)
if(NOT AMBER_HAVE_TSAN)
  message(STATUS "libamber (tsan): ${CMAKE_C_COMPILER} cannot link -fsanitize=thread -shared-libsan (install libclang-rt-16-dev); test/tsan is skipped")
  set(AMBER_TSAN_RUNTIME "" PARENT_SCOPE)
  return()
endif()
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-runtime-dir
                OUTPUT_VARIABLE AMBER_CLANG_RT_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)

add_library(amber_tsan_objs OBJECT ${AMBER_RUNTIME_SOURCES})
target_include_directories(amber_tsan_objs PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/include)
target_compile_definitions(amber_tsan_objs PUBLIC _GNU_SOURCE)
target_compile_definitions(amber_tsan_objs PRIVATE "AMBER_RUNTIME_ID=\"${AMBER_RUNTIME_ID}, ThreadSanitizer\"")
target_compile_options(amber_tsan_objs PRIVATE ${AMBER_WARN} -fno-omit-frame-pointer -fsanitize=thread)
target_link_libraries(amber_tsan_objs PUBLIC dl)

add_library(amber_tsan SHARED $<TARGET_OBJECTS:amber_tsan_objs> $<TARGET_OBJECTS:amber_wrap_objs>)
set_target_properties(amber_tsan PROPERTIES OUTPUT_NAME amber
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/tsan)
target_link_options(amber_tsan PRIVATE ${AMBER_WRAP_FLAGS} -fsanitize=thread -shared-libsan
                    -Wl,-rpath,${AMBER_CLANG_RT_DIR} -Wl,-z,defs)
target_link_libraries(amber_tsan PRIVATE pthread dl)
# A program for test/tsan links TSan's shared runtime too, and finds it.
set(AMBER_TSAN_CFLAGS "-fsanitize=thread -shared-libsan -Wl,-rpath,${AMBER_CLANG_RT_DIR}" PARENT_SCOPE)
set(AMBER_TSAN_RUNTIME ${CMAKE_BINARY_DIR}/lib/tsan/libamber.so PARENT_SCOPE)
