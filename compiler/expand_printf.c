/* printf before canonicalising. OpenCL's vector conversions (`%v4hlf` for a float4, `%v2hld`
 * for an int2) become one C conversion per element, joined by commas as OpenCL prints them,
 * with the elements passed as C's default promotions pass them (float as double, char and
 * short as int); the format, a __constant string, is rewritten to match. The lowering then
 * sees scalar arguments only, and calls the C library's printf once per lane. Every call is
 * also marked nobuiltin, so that the pipeline does not turn it into puts or putchar, which the
 * lowering does not know. A format that is not a constant string is left as it is. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "compiler.h"

/* The constant string a format argument points at, or NULL. */
static const char *format_text(LLVMValueRef fmt, size_t *len) {
  LLVMValueRef g = LLVMIsAGlobalVariable(fmt) ? fmt : NULL;
  if (!g && LLVMIsAConstantExpr(fmt)) g = LLVMIsAGlobalVariable(LLVMGetOperand(fmt, 0));
  LLVMValueRef init = g && LLVMIsGlobalConstant(g) ? LLVMGetInitializer(g) : NULL;
  return init && LLVMIsConstantString(init) ? LLVMGetAsString(init, len) : NULL;
}

/* One conversion, from '%' to the conversion character: its vector width (0: none), where its
 * length modifier starts and ends, and the character. */
typedef struct conversion {
  const char *start, *length, *end; /* length..end: the modifier; *end: the character */
  unsigned width, stars;            /* vN; '*' widths and precisions, each an int argument */
} conversion;

static const char *parse(const char *p, conversion *c) {
  c->start = p++, c->width = 0, c->stars = 0;
  while (*p && strchr("-+ #0", *p)) p++;
  for (; *p && strchr("0123456789.*", *p); p++) c->stars += *p == '*';
  if (*p == 'v') c->width = (unsigned)strtoul(p + 1, (char **)&p, 10);
  c->length = p;
  while (*p && strchr("hlLjzt", *p)) p++;
  c->end = p;
  return *p ? p + 1 : p;
}

/* The element of vector v at i, promoted as C passes a variadic argument. */
static LLVMValueRef promoted(LLVMBuilderRef b, LLVMValueRef v, unsigned i, int is_signed) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(v));
  LLVMValueRef e = LLVMBuildExtractElement(b, v, LLVMConstInt(LLVMInt32TypeInContext(c), i, 0), "");
  LLVMTypeRef t = LLVMTypeOf(e);
  if (LLVMGetTypeKind(t) == LLVMFloatTypeKind || LLVMGetTypeKind(t) == LLVMHalfTypeKind)
    return LLVMBuildFPExt(b, e, LLVMDoubleTypeInContext(c), "");
  if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) < 32)
    return is_signed ? LLVMBuildSExt(b, e, LLVMInt32TypeInContext(c), "")
                     : LLVMBuildZExt(b, e, LLVMInt32TypeInContext(c), "");
  return e;
}

/* The element type that conversion c names: hh, h, hl, l for 8-, 16-, 32- and 64-bit
 * integers; h, hl, l for half, float and double. NULL for anything else. */
static LLVMTypeRef element_type(LLVMContextRef ctx, const conversion *c) {
  size_t mod = (size_t)(c->end - c->length);
  unsigned bits = mod == 2 && !strncmp(c->length, "hh", 2)   ? 8
                  : mod == 1 && *c->length == 'h'            ? 16
                  : mod == 2 && !strncmp(c->length, "hl", 2) ? 32
                  : mod == 1 && *c->length == 'l'            ? 64
                                                             : 0;
  if (!bits) return NULL;
  if (strchr("diouxXc", *c->end)) return LLVMIntTypeInContext(ctx, bits);
  if (!strchr("fFeEgGaA", *c->end) || bits == 8) return NULL;
  return bits == 16   ? LLVMHalfTypeInContext(ctx)
         : bits == 32 ? LLVMFloatTypeInContext(ctx)
                      : LLVMDoubleTypeInContext(ctx);
}

/* Argument i of call as a vector of conversion c's elements, at least c->width of them, as
 * clang passed it: a vector, a vector in memory (byval, int8), or a scalar of the same bits
 * (the x86-64 ABI's double for float2, i16 for char2). NULL when it is none of these. */
static LLVMValueRef vector_arg(LLVMBuilderRef b, LLVMValueRef call, unsigned i,
                               const conversion *c) {
  LLVMValueRef a = LLVMGetOperand(call, i);
  LLVMTypeRef t = LLVMTypeOf(a), e = element_type(LLVMGetTypeContext(t), c);
  if (!e) return NULL;
  LLVMAttributeRef byval = LLVMGetCallSiteEnumAttribute(
      call, i + 1, LLVMGetEnumAttributeKindForName("byval", 5));
  if (byval) t = LLVMGetTypeAttributeValue(byval);
  if (LLVMGetTypeKind(t) == LLVMPointerTypeKind || LLVMGetTypeKind(t) == LLVMStructTypeKind)
    return NULL;
  unsigned bits = ir_is_vector(t) ? LLVMGetVectorSize(t) * ir_scalar_bits(t) : ir_scalar_bits(t);
  unsigned n = bits / ir_scalar_bits(e);
  if (n < c->width || n * ir_scalar_bits(e) != bits) return NULL;
  return ir_passed_as(b, a, LLVMVectorType(e, n));
}

/* Appends conversion c for each element of vector arg: the same flags, width and precision,
 * C's length modifier for the element (none for hl). */
static void expand_vector(FILE *out, const conversion *c, LLVMBuilderRef b, LLVMValueRef arg,
                          LLVMValueRef *args, unsigned *nargs) {
  const char *v = strchr(c->start, 'v');
  size_t mod = (size_t)(c->end - c->length);
  int hl = mod == 2 && !strncmp(c->length, "hl", 2), is_signed = *c->end == 'd' || *c->end == 'i';
  for (unsigned i = 0; i < c->width; i++) {
    fprintf(out, "%s%.*s%.*s%c", i ? "," : "", (int)(v - c->start), c->start, hl ? 0 : (int)mod,
            c->length, *c->end);
    args[(*nargs)++] = promoted(b, arg, i, is_signed);
  }
}

/* A new __constant string in the address space of the format `old`, holding text. */
static LLVMValueRef new_format(LLVMModuleRef m, LLVMValueRef old, const char *text, size_t len) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef init = LLVMConstStringInContext(c, text, (unsigned)len, 1); /* has its NUL */
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, LLVMTypeOf(init), ".str.weft",
                                               LLVMGetPointerAddressSpace(LLVMTypeOf(old)));
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  return g;
}

/* Rewrites call's vector conversions; returns the new call, or call when it has none. */
static LLVMValueRef expand_call(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call) {
  size_t len;
  const char *fmt = format_text(LLVMGetOperand(call, 0), &len);
  unsigned n = LLVMGetNumArgOperands(call), nargs = 1, used = 1, vectors = 0;
  if (!fmt) return call;
  LLVMValueRef *args = calloc(n * 16 + 1, sizeof *args);
  char *text = NULL;
  size_t tlen = 0;
  FILE *out = open_memstream(&text, &tlen);
  LLVMPositionBuilderBefore(b, call);
  for (const char *p = fmt, *end = fmt + len; p < end;) {
    if (*p != '%' || p[1] == '%') {
      size_t k = *p == '%' ? 2 : 1;
      fwrite(p, 1, k, out), p += k;
      continue;
    }
    conversion c;
    const char *next = parse(p, &c);
    for (unsigned s = 0; s < c.stars && used < n; s++) args[nargs++] = LLVMGetOperand(call, used++);
    LLVMValueRef arg = used < n ? LLVMGetOperand(call, used) : NULL;
    LLVMValueRef vec = c.width && arg ? vector_arg(b, call, used, &c) : NULL;
    used += arg != NULL;
    if (vec) {
      expand_vector(out, &c, b, vec, args, &nargs);
      vectors++;
    } else {
      fwrite(p, 1, (size_t)(next - p), out);
      if (arg) args[nargs++] = arg;
    }
    p = next;
  }
  fclose(out);
  LLVMValueRef r = call;
  if (vectors && text) {
    args[0] = new_format(m, LLVMGetOperand(call, 0), text, tlen);
    LLVMValueRef fn = LLVMGetCalledValue(call);
    r = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, nargs, "");
    LLVMInstructionSetDebugLoc(r, LLVMInstructionGetDebugLoc(call));
    LLVMReplaceAllUsesWith(call, r);
    LLVMInstructionEraseFromParent(call);
  }
  free(text), free(args);
  return r;
}

/* The next conversion of the format from *p to end into c, past text and %%; 0 when there is
 * none left. *p moves past it. */
static int next_conversion(const char **p, const char *end, conversion *c) {
  while (*p < end && (**p != '%' || (*p)[1] == '%')) *p += **p == '%' ? 2 : 1;
  if (*p >= end) return 0;
  *p = parse(*p, c);
  return 1;
}

/* Whether argument a can be what conversion c reads, after C's promotions. */
static int argument_fits(const conversion *c, LLVMValueRef a) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMTypeKind kind = LLVMGetTypeKind(t);
  char conv = *c->end;
  size_t len;
  if (strchr("diouxXc", conv)) {
    int wide = c->end > c->length && strchr("ljzt", c->end[-1]); /* 64 bits; else an int */
    return kind == LLVMIntegerTypeKind && (LLVMGetIntTypeWidth(t) == 64) == wide;
  }
  if (strchr("fFeEgGaA", conv)) return kind == LLVMDoubleTypeKind;
  if (conv == 'p') return kind == LLVMPointerTypeKind;
  return conv == 's' && kind == LLVMPointerTypeKind && format_text(a, &len); /* a literal */
}

/* printf's format is a string literal whose conversions match the arguments, each as the C
 * library reads it: anything else would have the C library read arguments that are not there
 * or take an int for a pointer (and %n write through one). NULL, or what is wrong. */
const char *printf_mismatch(LLVMValueRef call) {
  size_t len;
  const char *fmt = format_text(LLVMGetOperand(call, 0), &len);
  unsigned n = LLVMGetNumArgOperands(call), used = 1;
  if (!fmt) return "printf with a format that is not a string literal";
  conversion c;
  const char *p = fmt, *end = fmt + strnlen(fmt, len); /* the C library stops at a NUL */
  while (next_conversion(&p, end, &c)) {
    for (unsigned s = 0; s < c.stars; s++, used++)
      if (used >= n ||
          LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, used))) != LLVMIntegerTypeKind)
        return "printf with a '*' width or precision that has no int argument";
    if (*c.end == 'n') return "printf's %n (it would write through a pointer)";
    if (!*c.end || !strchr("diouxXcfFeEgGaAsp", *c.end))
      return "printf with a conversion that is not one of %d %i %o %u %x %X %c %f %F %e %E %g "
             "%G %a %A %s %p";
    if (used >= n) return "printf with more conversions than arguments";
    if (!argument_fits(&c, LLVMGetOperand(call, used++)))
      return "printf with an argument of another type than its conversion asks (%s: a string "
             "literal; %ld, %lu...: a long; %f...: a float or double; %d...: a shorter integer)";
  }
  return used < n ? "printf with more arguments than conversions" : NULL;
}

int printf_vector_left(LLVMValueRef call) {
  size_t len;
  const char *fmt = format_text(LLVMGetOperand(call, 0), &len);
  conversion c;
  const char *p = fmt;
  while (fmt && next_conversion(&p, fmt + len, &c))
    if (c.width) return 1;
  return 0;
}

void expand_printf(LLVMModuleRef m) {
  LLVMValueRef f = LLVMGetNamedFunction(m, "printf");
  if (!f) return;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  unsigned kind = LLVMGetEnumAttributeKindForName("nobuiltin", 9);
  for (LLVMUseRef u = LLVMGetFirstUse(f), next; u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f) continue;
    call = expand_call(m, b, call);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, kind, 0));
  }
  LLVMDisposeBuilder(b);
}
