/* The gate on compiled lesson files (objgate.h): a small ELF64 reader and the rules. */
#include "objgate.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

#define STO_CUDA_ENTRY 0x10
#define STATIC_SHARED_MAX 49152 /* what a block may declare statically on any GPU since sm_20 */

struct elf {
    unsigned char *data;
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    const char *shstr;
    const Elf64_Sym *sym;
    size_t nsym;
    const char *str;
};

static int refuse(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

static int in_file(const struct elf *e, size_t off, size_t n) { return off <= e->size && n <= e->size - off; }

static const char *section_name(const struct elf *e, int i)
{
    size_t off = e->sh[e->eh->e_shstrndx].sh_offset + e->sh[i].sh_name;
    return in_file(e, off, 1) ? (const char *)e->data + off : "";
}

static const char *symbol_name(const struct elf *e, size_t i)
{
    return i < e->nsym ? e->str + e->sym[i].st_name : "";
}

static int elf_open(struct elf *e, const char *path, char *msg, size_t len)
{
    memset(e, 0, sizeof *e);
    e->data = (unsigned char *)read_file_bytes(path, &e->size);
    if (!e->data)
        return refuse(msg, len, "cannot read the compiled object %s", path);
    e->eh = (const Elf64_Ehdr *)e->data;
    if (e->size < sizeof *e->eh || memcmp(e->eh->e_ident, ELFMAG, SELFMAG) != 0 || e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        !in_file(e, e->eh->e_shoff, (size_t)e->eh->e_shnum * sizeof(Elf64_Shdr)) || e->eh->e_shstrndx >= e->eh->e_shnum)
        return refuse(msg, len, "the compiled object %s is not an ELF64 file", path);
    e->sh = (const Elf64_Shdr *)(e->data + e->eh->e_shoff);
    for (int i = 0; i < e->eh->e_shnum; i++)
        if (e->sh[i].sh_type == SHT_SYMTAB && e->sh[i].sh_link < e->eh->e_shnum &&
            in_file(e, e->sh[i].sh_offset, e->sh[i].sh_size)) {
            e->sym = (const Elf64_Sym *)(e->data + e->sh[i].sh_offset);
            e->nsym = e->sh[i].sh_size / sizeof(Elf64_Sym);
            const Elf64_Shdr *s = &e->sh[e->sh[i].sh_link];
            if (!in_file(e, s->sh_offset, s->sh_size) || s->sh_size == 0)
                return refuse(msg, len, "the compiled object %s has a broken symbol table", path);
            e->str = (const char *)e->data + s->sh_offset;
            for (size_t k = 0; k < e->nsym; k++)
                if (e->sym[k].st_name >= s->sh_size)
                    return refuse(msg, len, "the compiled object %s has a broken symbol table", path);
        }
    if (!e->sym)
        return refuse(msg, len, "the compiled object %s has no symbol table", path);
    return 0;
}

/* A nested name as the source spells it, without its role's namespace: _ZN7student2AsE is
 * "As", _ZN7student3ns1xE "ns::x"; anything else as it is. */
static const char *source_name(const char *mangled)
{
    static char out[256];
    const char *p = mangled + 3;
    if (strncmp(mangled, "_ZN", 3) != 0)
        return mangled;
    size_t k = 0;
    for (int part = 0; *p >= '1' && *p <= '9'; part++) {
        char *end;
        unsigned long n = strtoul(p, &end, 10);
        if (strlen(end) < n)
            return mangled;
        if (part > 0)
            k += (size_t)snprintf(out + k, sizeof out - k, "%s%.*s", k ? "::" : "", (int)n, end);
        if (k >= sizeof out)
            return mangled;
        p = end + n;
    }
    return *p == 'E' && k ? out : mangled;
}

/* The first symbol defined in section i, for naming a variable. */
static const char *first_symbol_in(const struct elf *e, int i)
{
    for (size_t k = 1; k < e->nsym; k++)
        if (e->sym[k].st_shndx == i && ELF64_ST_TYPE(e->sym[k].st_info) == STT_OBJECT)
            return source_name(symbol_name(e, k));
    return "a variable";
}

/* The first variable of section i that is not one of nvcc's string literals ($str...), or NULL. */
static const char *first_variable_in(const struct elf *e, int i)
{
    for (size_t k = 1; k < e->nsym; k++)
        if (e->sym[k].st_shndx == i && ELF64_ST_TYPE(e->sym[k].st_info) == STT_OBJECT && symbol_name(e, k)[0] != '$')
            return source_name(symbol_name(e, k));
    return NULL;
}

/* Calls out of the object: allowed where listed, by exact name or by prefix ("x*"). */
static int allowed(const char *name, const char *const *list)
{
    for (int i = 0; list[i]; i++) {
        size_t n = strlen(list[i]);
        if (list[i][n - 1] == '*' ? strncmp(name, list[i], n - 1) == 0 : strcmp(name, list[i]) == 0)
            return 1;
    }
    return 0;
}

/* libm functions that write through a pointer (untraced, since libm is not): never allowed. */
static const char *const EMU_REFUSED[] = {"sincos*", "__sincos*", "frexp*", "modf*", "remquo*", "lgamma_r", "lgammaf_r", "lgammal_r", "nan*", NULL};
static const char *const EMU_CALLS[] = {
    "__tsan_*", "emu_syncthreads", "emu_syncthreads_vote", "emu_warp_collective", "emu_activemask", "emu_atomic_rmw",
    "emu_clock64", "emu_printf", "threadIdx", "blockIdx", "blockDim", "gridDim", "_GLOBAL_OFFSET_TABLE_",
    "__stack_chk_fail",
    /* libm: what CUDA's math API offers device code */
    "sqrt*", "cbrt*", "rsqrt*", "exp*", "log*", "pow*", "sin*", "cos*", "tan*", "asin*", "acos*", "atan*", "sinh*",
    "cosh*", "tanh*", "erf*", "fabs*", "fmin*", "fmax*", "fmod*", "floor*", "ceil*", "round*", "lround*", "trunc*",
    "rint*", "lrint*", "nearbyint*", "fma*", "copysign*", "hypot*", "ldexp*", "remainder*",
    "tgamma*", "lgamma*", "__isnan*", "__isinf*", "__finite*", "__fpclassify*", "__signbit*", NULL};
static const char *const CUBIN_CALLS[] = {"vprintf", "__assertfail", ".nv.*", NULL};

static void demangled_contract(char *buf, size_t len, const char *kernel, const struct family *f)
{
    snprintf(buf, len, "%s(%s)", kernel, f->params);
}

/* The contract's kernel is defined (want, a mangled name); else a sentence. */
static int find_kernel(const struct elf *e, const char *want, const char *kernel, const struct family *f, int entry_only,
                       char *msg, size_t len)
{
    int found = 0, entries = 0;
    const char *other = NULL;
    for (size_t k = 1; k < e->nsym; k++) {
        const Elf64_Sym *s = &e->sym[k];
        if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF)
            continue;
        if (entry_only && !(s->st_other & STO_CUDA_ENTRY))
            continue;
        entries++;
        if (strcmp(symbol_name(e, k), want) == 0)
            found = 1;
        else if (strstr(symbol_name(e, k), kernel))
            other = symbol_name(e, k);
    }
    char contract[160];
    demangled_contract(contract, sizeof contract, kernel, f);
    if (!found && other)
        return refuse(msg, len, "your kernel's parameters differ from the contract: it must be `__global__ void %s` "
                                "(the comment above the stub says so); found %s", contract, other);
    if (!found)
        return refuse(msg, len, "no kernel `%s` in the file: the harness launches that one", contract);
    if (entry_only && entries > 1)
        return refuse(msg, len, "the file defines %d __global__ kernels; a lesson file has exactly one, `%s`", entries,
                      kernel);
    return 0;
}

static int gate_cubin(const struct elf *e, const char *kernel, const struct family *f, char *msg, size_t len)
{
    for (int i = 0; i < e->eh->e_shnum; i++) {
        const char *name = section_name(e, i);
        /* printf's format strings ($str...) live there too; any other variable is state. */
        const char *var = strncmp(name, ".nv.global", 10) == 0 ? first_variable_in(e, i) : NULL;
        if (var)
            return refuse(msg, len, "`%s` is a writable __device__ variable: it keeps its value from one launch to "
                                    "the next, which a lesson file may not do (a launch must compute its output from "
                                    "its inputs alone; use __shared__ memory, registers, or the output)",
                          var);
    }
    for (size_t k = 1; k < e->nsym; k++)
        if (e->sym[k].st_shndx == SHN_UNDEF && e->sym[k].st_name && !allowed(symbol_name(e, k), CUBIN_CALLS))
            return refuse(msg, len, "your kernel calls `%s`, which lesson files may not use (device code may call "
                                    "its own functions, CUDA's math and printf)", symbol_name(e, k));
    char want[256];
    snprintf(want, sizeof want, "_Z%zu%s%s", strlen(kernel), kernel, f->mangled_params);
    return find_kernel(e, want, kernel, f, 1, msg, len);
}

static int gate_emu(const struct elf *e, const char *role, const char *kernel, const struct family *f, char *msg, size_t len)
{
    char ns[80], shared[96];
    snprintf(ns, sizeof ns, "_ZN%zu%s", strlen(role), role);
    snprintf(shared, sizeof shared, "wb_shared_%s", role);
    for (int i = 0; i < e->eh->e_shnum; i++) {
        const char *name = section_name(e, i);
        const Elf64_Shdr *s = &e->sh[i];
        if (strncmp(name, ".ctors", 6) == 0 || strncmp(name, ".dtors", 6) == 0 || strncmp(name, ".fini_array", 11) == 0 ||
            strncmp(name, ".preinit_array", 14) == 0)
            return refuse(msg, len, "static constructors and destructors are not allowed in lesson files (%s): "
                                    "code that runs before or after the kernels is host code", name);
        /* Every start-up function must be the tracer's own. */
        if (s->sh_type == SHT_RELA && strncmp(name, ".rela.init_array", 16) == 0) {
            const Elf64_Rela *r = (const Elf64_Rela *)(e->data + s->sh_offset);
            for (size_t k = 0; in_file(e, s->sh_offset, s->sh_size) && k < s->sh_size / sizeof *r; k++) {
                size_t sym = ELF64_R_SYM(r[k].r_info);
                const char *fn = symbol_name(e, sym);
                /* The tracer's constructor, by name or by its section (.text.tsan.module_ctor). */
                if (sym < e->nsym && ELF64_ST_TYPE(e->sym[sym].st_info) == STT_SECTION &&
                    e->sym[sym].st_shndx < e->eh->e_shnum)
                    fn = section_name(e, e->sym[sym].st_shndx);
                if (strcmp(fn, "tsan.module_ctor") != 0 && strcmp(fn, ".text.tsan.module_ctor") != 0)
                    return refuse(msg, len, "static constructors are not allowed in lesson files (%s runs when the "
                                            "program starts): a lesson file holds kernels only",
                                  *fn ? fn : "a function");
            }
            continue;
        }
        if (strncmp(name, ".init_array", 11) == 0 || !(s->sh_flags & SHF_WRITE) || s->sh_size == 0)
            continue;
        if (strcmp(name, shared) == 0) {
            if (s->sh_size > STATIC_SHARED_MAX)
                return refuse(msg, len, "your kernel declares %llu bytes of static shared memory; a block may declare "
                                        "at most %d bytes statically (48 KB), on a GPU as here",
                              (unsigned long long)s->sh_size, STATIC_SHARED_MAX);
            continue;
        }
        return refuse(msg, len, "`%s` is a writable global variable (a __device__ variable, or a static one): it "
                                "keeps its value from one launch to the next, which a lesson file may not do (a launch "
                                "must compute its output from its inputs alone; use __shared__ memory, registers, or "
                                "the output)", first_symbol_in(e, i));
    }
    for (size_t k = 1; k < e->nsym; k++) {
        const Elf64_Sym *s = &e->sym[k];
        const char *name = symbol_name(e, k);
        if (s->st_shndx == SHN_UNDEF && s->st_name && allowed(name, EMU_REFUSED))
            return refuse(msg, len, "your kernel calls `%s`, which the emulator does not allow: it reads or writes "
                                    "memory through a pointer where the tracer cannot see it (sincosf: use sinf and "
                                    "cosf)", name);
        /* A plain memset or memcpy is the compiler's, not the student's (an explicit one is traced
         * and allowed): it fills or copies a local array it keeps in memory. */
        if (s->st_shndx == SHN_UNDEF && s->st_name && (!strcmp(name, "memset") || !strcmp(name, "memcpy")))
            return refuse(msg, len, "the emulator's compiler turned an initialisation or copy of a local array into a "
                                    "call to `%s`, which the emulator cannot follow: this happens when an array such "
                                    "as `float acc[8][8] = {}` is used in a loop the compiler does not unroll. Unroll "
                                    "the loops over it (#pragma unroll with constant bounds) or set it with a loop of "
                                    "stores: nvcc may well keep it in registers, but the emulator must see every "
                                    "access", name);
        if (s->st_shndx == SHN_UNDEF && s->st_name && !allowed(name, EMU_CALLS))
            return refuse(msg, len, "your kernel calls `%s`, which lesson files may not use (device code may call its "
                                    "own functions, CUDA's math and printf)", name);
        if (s->st_shndx != SHN_UNDEF && ELF64_ST_BIND(s->st_info) != STB_LOCAL && s->st_name &&
            strncmp(name, ns, strlen(ns)) != 0)
            return refuse(msg, len, "the file defines `%s` outside its own namespace: a lesson file may define "
                                    "kernels and device functions only", name);
    }
    char want[256];
    snprintf(want, sizeof want, "%s%zu%sE%s", ns, strlen(kernel), kernel, f->mangled_params_nested);
    return find_kernel(e, want, kernel, f, 0, msg, len);
}

int gate_object(const char *path, const char *kind, const char *role, const char *kernel, const struct family *family,
                char *msg, size_t len)
{
    struct elf e;
    int rc = elf_open(&e, path, msg, len);
    if (rc == 0)
        rc = strcmp(kind, "cubin") == 0 ? gate_cubin(&e, kernel, family, msg, len)
                                        : gate_emu(&e, role, kernel, family, msg, len);
    free(e.data);
    return rc;
}
