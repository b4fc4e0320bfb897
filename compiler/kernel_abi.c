/* A kernel's interface to the runtime: its parameters (from clang's kernel_arg_* metadata), the
 * argument block they are stored in, the argument setter that libffi calls once per launch,
 * and the description of its blocks that the runtime and the tools read (weft_compiled_kernel).
 * The warp function that reads the argument block is the lowering's (lower_warp.c). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "compiler.h"

/* ---- parameters ---- */

static LLVMValueRef md_operand(LLVMValueRef fn, const char *kind, unsigned i) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned id = LLVMGetMDKindIDInContext(c, kind, (unsigned)strlen(kind));
  size_t n;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  LLVMValueRef r = NULL;
  for (size_t k = 0; k < n && !r; k++) {
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)k) != id) continue;
    LLVMValueRef node = LLVMMetadataAsValue(c,
                                            LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
    if (i < LLVMGetMDNodeNumOperands(node)) {
      LLVMValueRef *ops = calloc(LLVMGetMDNodeNumOperands(node), sizeof *ops);
      LLVMGetMDNodeOperands(node, ops);
      r = ops[i];
      free(ops);
    }
  }
  if (md) LLVMDisposeValueMetadataEntries(md);
  return r;
}

static char *md_string(LLVMValueRef fn, const char *kind, unsigned i) {
  LLVMValueRef v = md_operand(fn, kind, i);
  unsigned len = 0;
  const char *s = v ? LLVMGetMDString(v, &len) : NULL;
  return s ? strndup(s, len) : strdup("?");
}

typedef struct type_name {
  const char *name;
  weft_type type;
} type_name;

static const type_name scalar_names[] = {{"unsigned char", WEFT_U8}, {"uchar", WEFT_U8},
                                         {"char", WEFT_I8},          {"unsigned short", WEFT_U16},
                                         {"ushort", WEFT_U16},       {"short", WEFT_I16},
                                         {"unsigned int", WEFT_U32}, {"uint", WEFT_U32},
                                         {"int", WEFT_I32},          {"unsigned long", WEFT_U64},
                                         {"ulong", WEFT_U64},        {"size_t", WEFT_U64},
                                         {"long", WEFT_I64},         {"float", WEFT_F32},
                                         {"double", WEFT_F64},       {"bool", WEFT_U8}};

/* "const float4*" -> F32, width 4; a base type as clang spells a typedef's vector,
 * "float __attribute__((ext_vector_type(4)))*", is read as float4*. */
static weft_type parse_type_name(const char *tn, unsigned *width) {
  static const char ext[] = " __attribute__((ext_vector_type(";
  char buf[128];
  snprintf(buf, sizeof buf, "%s", tn);
  char *p = buf, *v = strstr(buf, ext);
  if (v) { /* the width after the scalar's name, then what followed the attribute */
    const char *after = strstr(v, ")))");
    char rest[sizeof buf];
    snprintf(rest, sizeof rest, "%s", after ? after + 3 : "");
    snprintf(v, sizeof buf - (size_t)(v - buf), "%d%s", atoi(v + sizeof ext - 1), rest);
  }
  for (const char *q; (q = strstr(p, "const ")) == p || (q = strstr(p, "volatile ")) == p;)
    p += strchr(p, ' ') - p + 1;
  char *star = strchr(p, '*');
  if (star) *star = 0;
  for (size_t n = strlen(p); n && p[n - 1] == ' '; n--) p[n - 1] = 0;
  *width = 1;
  for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++) {
    size_t n = strlen(scalar_names[i].name);
    if (strncmp(p, scalar_names[i].name, n)) continue;
    if (p[n] && (p[n] < '0' || p[n] > '9')) continue;
    if (p[n]) *width = (unsigned)atoi(p + n);
    return scalar_names[i].type;
  }
  return WEFT_OTHER;
}

static weft_arg_kind param_kind(LLVMValueRef fn, unsigned i, LLVMValueRef param) {
  LLVMValueRef as = md_operand(fn, "kernel_arg_addr_space", i);
  unsigned space = as ? (unsigned)LLVMConstIntGetZExtValue(as) : 0;
  if (LLVMGetTypeKind(LLVMTypeOf(param)) != LLVMPointerTypeKind || ir_byval_type(fn, i))
    return WEFT_ARG_VALUE;
  return space == 3 ? WEFT_ARG_LOCAL : space == 2 ? WEFT_ARG_CONSTANT : WEFT_ARG_GLOBAL;
}

/* Images, samplers and events: OpenCL C types that name no memory weft could pass (it has no
 * image support). Read as "a __global buffer" otherwise. */
static int is_image_type(const char *tn) {
  size_t n = strlen(tn);
  if (!strcmp(tn, "sampler_t") || !strcmp(tn, "event_t")) return 1;
  return (!strncmp(tn, "image1d", 7) || !strncmp(tn, "image2d", 7) || !strncmp(tn, "image3d", 7)) &&
         n > 2 && !strcmp(tn + n - 2, "_t"); /* image2d_t, image1d_array_t, ...: no pointer */
}

/* "FILE:LINE: " of the kernel's definition, or "" without debug information. */
static void kernel_at(LLVMValueRef fn, char *buf, size_t n) {
  LLVMMetadataRef sp = LLVMGetSubprogram(fn);
  buf[0] = 0;
  if (!sp) return;
  unsigned len = 0;
  const char *file = LLVMDIFileGetFilename(LLVMDIScopeGetFile(sp), &len);
  snprintf(buf, n, "%.*s:%u: ", (int)len, file ? file : "", LLVMDISubprogramGetLine(sp));
}

/* const, restrict and volatile, as clang's kernel_arg_type_qual lists them ("const volatile"). */
static unsigned type_qualifiers(LLVMValueRef fn, unsigned i) {
  static const char *const words[] = {"const", "restrict", "volatile"};
  char *q = md_string(fn, "kernel_arg_type_qual", i);
  unsigned bits = 0;
  for (unsigned w = 0; w < 3; w++)
    for (const char *at = strstr(q, words[w]); at; at = strstr(at + 1, words[w])) {
      size_t n = strlen(words[w]);
      if ((at == q || at[-1] == ' ') && (at[n] == 0 || at[n] == ' ')) bits |= 1u << w;
    }
  free(q);
  return bits;
}

/* What the code may assume of pointer parameter i's address: clang's `align` on it (16 for a
 * struct with a float4, typedef or not); 1 without. At most what weft_buffer_alloc gives. */
static size_t param_align(LLVMValueRef fn, unsigned i) {
  unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
  LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, i + 1, kind);
  uint64_t align = a ? LLVMGetEnumAttributeValue(a) : 1;
  return align < WEFT_BUFFER_ALIGN ? (size_t)align : WEFT_BUFFER_ALIGN;
}

/* Fills the parameter table and lays out the argument block. */
static weft_status describe_params(LLVMValueRef fn, LLVMTargetDataRef td, weft_compiled_kernel *k,
                                   char **err) {
  k->nparams = LLVMCountParams(fn);
  weft_param *ps = calloc(k->nparams ? k->nparams : 1, sizeof *ps);
  size_t off = 0;
  for (unsigned i = 0; i < k->nparams; i++) {
    weft_param *p = &ps[i];
    LLVMValueRef param = LLVMGetParam(fn, i);
    LLVMTypeRef t = LLVMTypeOf(param);
    p->name = md_string(fn, "kernel_arg_name", i);
    p->type_name = md_string(fn, "kernel_arg_type", i);
    p->kind = param_kind(fn, i, param);
    p->qualifiers = type_qualifiers(fn, i);
    char *base = md_string(fn, "kernel_arg_base_type", i); /* a typedef resolved */
    p->type = parse_type_name(strcmp(base, "?") ? base : p->type_name, &p->vector_width);
    p->align = p->kind == WEFT_ARG_VALUE ? 0 : param_align(fn, i);
    free(base);
    if (p->type_name && is_image_type(p->type_name)) {
      char at[300];
      kernel_at(fn, at, sizeof at);
      k->params = ps;
      if (asprintf(err,
                   "%skernel %s: parameter '%s' of type %s: weft does not support images, "
                   "samplers or events as parameters (it has no image support)",
                   at, k->name, p->name, p->type_name) < 0)
        *err = NULL;
      return WEFT_ERROR_UNSUPPORTED;
    }
    LLVMTypeRef by_struct = ir_byval_type(fn, i);
    if (by_struct) { /* its bytes, which setargs copies into the block */
      p->type = WEFT_OTHER, p->vector_width = 1;
      p->size = LLVMABISizeOfType(td, by_struct);
    } else if (p->kind == WEFT_ARG_VALUE) {
      p->size = LLVMABISizeOfType(td, t);
      if (LLVMGetTypeKind(t) == LLVMStructTypeKind || LLVMGetTypeKind(t) == LLVMArrayTypeKind ||
          p->type == WEFT_OTHER) {
        k->params = ps;
        if (asprintf(err,
                     "kernel %s: parameter '%s' of type %s: weft supports scalar and vector "
                     "parameters and pointers only",
                     k->name, p->name, p->type_name) < 0)
          *err = NULL;
        return WEFT_ERROR_UNSUPPORTED;
      }
    } else {
      size_t elem = p->type == WEFT_OTHER ? 1 : weft_type_size(p->type); /* struct*: bytes */
      p->size = elem * (p->vector_width == 3 ? 4 : p->vector_width); /* short3: 8 */
      if (p->type != WEFT_OTHER && p->align < p->size) /* an element's own alignment */
        p->align = p->size < WEFT_BUFFER_ALIGN ? p->size : WEFT_BUFFER_ALIGN;
    }
    size_t slot = by_struct ? p->size : p->kind == WEFT_ARG_VALUE ? LLVMABISizeOfType(td, t) : 8;
    size_t align = slot >= 64 ? 64 : slot >= 32 ? 32 : slot >= 16 ? 16 : 8;
    off = (off + align - 1) & ~(align - 1);
    p->offset = off;
    off += slot;
  }
  k->params = ps;
  k->args_size = off ? off : 8;
  return WEFT_SUCCESS;
}

int kernel_name_functions(lowered_kernel *k, unsigned program) {
  free(k->run_name), free(k->setargs_name);
  k->run_name = k->setargs_name = NULL;
  if (asprintf(&k->run_name, KERNEL_SYMBOL_PREFIX "run_%s", program, k->info.name) < 0 ||
      asprintf(&k->setargs_name, KERNEL_SYMBOL_PREFIX "setargs_%s", program, k->info.name) < 0)
    return free(k->run_name), k->run_name = NULL, -1;
  return 0;
}

void kernel_name_globals(LLVMModuleRef m, int from, unsigned to) {
  char old[32];
  size_t skip = from < 0 ? 0 : (size_t)snprintf(old, sizeof old, KERNEL_SYMBOL_PREFIX "g_", from);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    LLVMLinkage l = LLVMGetLinkage(g);
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage || !len || !strncmp(name, "llvm.", 5) ||
        (skip && strncmp(name, old, skip)))
      continue;
    char *renamed = NULL;
    if (asprintf(&renamed, KERNEL_SYMBOL_PREFIX "g_%s", to, name + skip) < 0) DIE("out of memory");
    LLVMSetValueName2(g, renamed, strlen(renamed));
    free(renamed);
  }
}

weft_status kernel_describe(LLVMValueRef kfn, unsigned program, const lower_target *t,
                            lowered_kernel *out, char **err) {
  memset(out, 0, sizeof *out);
  size_t len;
  weft_compiled_kernel *k = &out->info;
  k->name = strdup(LLVMGetValueName2(kfn, &len));
  const char *file = LLVMGetDebugLocFilename(kfn, &(unsigned){0});
  k->file = file && *file ? strdup(file) : NULL;
  k->warp = t->warp, k->lanes = t->lanes;
  if (kernel_name_functions(out, program)) return WEFT_ERROR_OUT_OF_MEMORY;
  return describe_params(kfn, LLVMGetModuleDataLayout(LLVMGetGlobalParent(kfn)), k, err);
}

void kernel_describe_blocks(const cfg *g, weft_compiled_kernel *k) {
  uint32_t *ipdom = calloc((size_t)g->nblocks + 1, 4), *fl = calloc((size_t)g->nblocks + 1, 4),
           *ll = calloc((size_t)g->nblocks + 1, 4), *ni = calloc((size_t)g->nblocks + 1, 4),
           *bl = calloc((size_t)g->nblocks + 1, 4);
  for (int pc = 0; pc < g->nblocks; pc++) {
    ipdom[pc] = (uint32_t)g->blocks[pc].ipdom;
    fl[pc] = (uint32_t)g->blocks[pc].first_line, ll[pc] = (uint32_t)g->blocks[pc].last_line;
    ni[pc] = cfg_instrs(g->blocks[pc].bb);
    bl[pc] = (uint32_t)g->blocks[pc].barrier_line;
  }
  k->nblocks = (unsigned)g->nblocks;
  k->ipdom = ipdom, k->first_line = fl, k->last_line = ll, k->ninstr = ni, k->barrier_line = bl;
}

void kernel_info_free(lowered_kernel *lk) {
  weft_compiled_kernel *k = &lk->info;
  for (unsigned i = 0; k->params && i < k->nparams; i++)
    free((char *)k->params[i].name), free((char *)k->params[i].type_name);
  free((void *)k->params);
  free((void *)k->ipdom), free((void *)k->first_line), free((void *)k->last_line);
  free((void *)k->barrier_line);
  free((void *)k->ninstr), free((char *)k->name), free((char *)k->file);
  free(lk->run_name), free(lk->setargs_name);
  memset(lk, 0, sizeof *lk);
}

/* ---- the argument setter: void setargs(ptr block, params...) ---- */

/* A struct passed by value: setargs gets a pointer to its bytes, the kernel a pointer to the
 * block's copy of them (which private_struct_params in frontend.c copies again per work-item). */
int kernel_param_is_struct(const weft_param *p) {
  return p->kind == WEFT_ARG_VALUE && p->type == WEFT_OTHER;
}

static LLVMTypeRef ffi_param_type(LLVMContextRef c, const weft_param *p, LLVMTypeRef t) {
  if (p->kind == WEFT_ARG_LOCAL) return LLVMInt64TypeInContext(c);
  if (p->kind != WEFT_ARG_VALUE || LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    return LLVMPointerTypeInContext(c, 0);
  return t;
}

void kernel_build_setargs(LLVMValueRef fn, const weft_compiled_kernel *k, const char *name) {
  LLVMModuleRef m = LLVMGetGlobalParent(fn);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef *pt = calloc(k->nparams + 1, sizeof *pt);
  pt[0] = LLVMPointerTypeInContext(c, 0);
  for (unsigned i = 0; i < k->nparams; i++)
    pt[i + 1] = ffi_param_type(c, &k->params[i], LLVMTypeOf(LLVMGetParam(fn, i)));
  LLVMValueRef f = LLVMAddFunction(
      m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), pt, k->nparams + 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, ""));
  for (unsigned i = 0; i < k->nparams; i++) {
    LLVMValueRef v = LLVMGetParam(f, i + 1),
                 off = LLVMConstInt(LLVMInt64TypeInContext(c), k->params[i].offset, 0);
    LLVMTypeRef kt = LLVMTypeOf(LLVMGetParam(fn, i));
    if (k->params[i].kind == WEFT_ARG_VALUE && LLVMGetTypeKind(kt) == LLVMVectorTypeKind) {
      v = LLVMBuildLoad2(b, kt, v, "");
      LLVMSetAlignment(v, 1);
    }
    LLVMValueRef dst = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), LLVMGetParam(f, 0), &off, 1, "");
    if (kernel_param_is_struct(&k->params[i]))
      LLVMBuildMemCpy(b, dst, 8, v, 1,
                      LLVMConstInt(LLVMInt64TypeInContext(c), k->params[i].size, 0));
    else LLVMSetAlignment(LLVMBuildStore(b, v, dst), 8);
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(pt);
}
