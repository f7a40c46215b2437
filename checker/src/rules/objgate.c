/* The gate on compiled lesson files (objgate.h): a small ELF64 reader and the rules. */
#include "objgate.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "textfile.h"

#define STO_CUDA_ENTRY 0x10

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
    if (family_kernel_symbol(f, kernel, want, sizeof want) != 0)
        return refuse(msg, len, "the family %s's parameter `%s` has a type the grader cannot name", f->name, want);
    return find_kernel(e, want, kernel, f, 1, msg, len);
}

int gate_object(const char *path, const char *kernel, const struct family *family, char *msg, size_t len)
{
    struct elf e;
    int rc = elf_open(&e, path, msg, len);
    if (rc == 0)
        rc = gate_cubin(&e, kernel, family, msg, len);
    free(e.data);
    return rc;
}

/* What ptxas gave the contract's kernel: its registers per thread, the .nv.info section's
 * EIATTR_REGCOUNT record (attribute 0x2f, format EIFMT_SVAL: a 16-bit size, then the kernel's
 * symbol index and the count, 32 bits each); its static shared memory, the size of the section
 * .nv.shared.KERNEL (none: 0), less the 1 KB a block's shared memory reserves for the system
 * where the cubin maps that reserve (.nv.shared.reserved.0: the kernel's section then starts
 * with it), so that the figure is ptxas's own "bytes smem". */
int cubin_resources(const char *path, const char *kernel, const struct family *family, int *registers, size_t *shared)
{
    struct elf e;
    char msg[200], want[256], section[300];
    *registers = -1, *shared = 0;
    if (elf_open(&e, path, msg, sizeof msg) != 0) {
        free(e.data);
        return -1;
    }
    if (family_kernel_symbol(family, kernel, want, sizeof want) != 0) {
        free(e.data);
        return -1;
    }
    snprintf(section, sizeof section, ".nv.shared.%s", want);
    size_t sym = 0;
    for (size_t k = 1; k < e.nsym && !sym; k++)
        if (strcmp(symbol_name(&e, k), want) == 0)
            sym = k;
    int reserve_mapped = 0;
    for (int i = 0; i < e.eh->e_shnum && sym; i++) {
        const Elf64_Shdr *h = &e.sh[i];
        if (strcmp(section_name(&e, i), section) == 0)
            *shared = (size_t)h->sh_size;
        if (strncmp(section_name(&e, i), ".nv.shared.reserved.", 20) == 0)
            reserve_mapped = 1;
        if (strcmp(section_name(&e, i), ".nv.info") != 0 || !in_file(&e, h->sh_offset, h->sh_size))
            continue;
        const unsigned char *p = e.data + h->sh_offset, *end = p + h->sh_size;
        while (end - p >= 4) {
            unsigned format = p[0], attr = p[1], size = (unsigned)p[2] | (unsigned)p[3] << 8;
            if (format != 0x04) { /* a record without a size: its two value bytes */
                p += 4;
                continue;
            }
            if ((size_t)(end - p - 4) < size)
                break;
            uint32_t index, count;
            if (attr == 0x2f && size == 8) {
                memcpy(&index, p + 4, 4), memcpy(&count, p + 8, 4);
                if (index == sym && count <= 255)
                    *registers = (int)count;
            }
            p += 4 + size;
        }
    }
    if (reserve_mapped && *shared >= SHARED_SYSTEM_RESERVE)
        *shared -= SHARED_SYSTEM_RESERVE;
    free(e.data);
    return *registers < 0 ? -1 : 0;
}
