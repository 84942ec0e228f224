/* Lets atheris's libFuzzer see its coverage when gcc's ASan runtime is preloaded.
 *
 * gcc's libasan.so defines weak, do-nothing __sanitizer_cov_* callbacks. Preloaded
 * first, they shadow the real ones inside atheris's core_with_libfuzzer module, so
 * libFuzzer never learns about atheris's Python coverage counters ("no interesting
 * inputs were found"). This shim, preloaded *before* libasan
 * (ASAN_OPTIONS=verify_asan_link_order=0), defines those callbacks and forwards each
 * call to the definition in atheris's core module, looked up on first use.
 *
 * Build: gcc -shared -fPIC -O2 -o /tmp/atheris_asan_shim.so tests/fuzz/atheris_asan_shim.c -ldl
 * Not needed (and not used) without ASan. It allocates nothing, so ASan still owns malloc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void* core_handle(void) {
    static void* h = NULL;
    if (h != NULL) return h;
    const char* path = getenv("ATHERIS_CORE");
    if (path != NULL) h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL) abort(); /* atheris must be imported before any callback runs */
    return h;
}

static void* real(const char* name) {
    void* f = dlsym(core_handle(), name);
    if (f == NULL) abort();
    return f;
}

#define FWD(name, params, args)                                        \
    void name params {                                                 \
        static void(*f) params = NULL;                                 \
        if (f == NULL) f = (void(*) params)real(#name);                \
        f args;                                                        \
    }

FWD(__sanitizer_cov_8bit_counters_init, (uint8_t* a, uint8_t* b), (a, b))
FWD(__sanitizer_cov_pcs_init, (const uintptr_t* a, const uintptr_t* b), (a, b))
FWD(__sanitizer_cov_trace_pc_guard_init, (uint32_t* a, uint32_t* b), (a, b))
FWD(__sanitizer_cov_trace_pc_guard, (uint32_t* a), (a))
FWD(__sanitizer_cov_trace_pc, (void), ())
FWD(__sanitizer_cov_trace_pc_indir, (uintptr_t a), (a))
FWD(__sanitizer_cov_trace_cmp1, (uint8_t a, uint8_t b), (a, b))
FWD(__sanitizer_cov_trace_cmp2, (uint16_t a, uint16_t b), (a, b))
FWD(__sanitizer_cov_trace_cmp4, (uint32_t a, uint32_t b), (a, b))
FWD(__sanitizer_cov_trace_cmp8, (uint64_t a, uint64_t b), (a, b))
FWD(__sanitizer_cov_trace_const_cmp1, (uint8_t a, uint8_t b), (a, b))
FWD(__sanitizer_cov_trace_const_cmp2, (uint16_t a, uint16_t b), (a, b))
FWD(__sanitizer_cov_trace_const_cmp4, (uint32_t a, uint32_t b), (a, b))
FWD(__sanitizer_cov_trace_const_cmp8, (uint64_t a, uint64_t b), (a, b))
FWD(__sanitizer_cov_trace_switch, (uint64_t a, uint64_t* b), (a, b))
FWD(__sanitizer_cov_trace_div4, (uint32_t a), (a))
FWD(__sanitizer_cov_trace_div8, (uint64_t a), (a))
FWD(__sanitizer_cov_trace_gep, (uintptr_t a), (a))
