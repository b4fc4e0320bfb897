/* The registry of live objects: a fixed table of buckets chained through the objects
 * themselves, so that registering allocates nothing and checking a handle reads only objects
 * that are alive; and the memory of destroyed ones, kept by kind for the next (obj_alloc). One lock guards the table and every object's counts; it is held only for a
 * few loads and stores, and never while anything else is locked or called. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

#define BUCKETS 4096
#define KINDS (OBJ_EVENT + 1)

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static icd_obj *buckets[BUCKETS];
static icd_obj *released[KINDS]; /* memory of destroyed objects, by kind, chained */

void *obj_alloc(obj_kind kind, size_t size) {
  pthread_mutex_lock(&registry_lock);
  icd_obj *o = released[kind];
  if (o) released[kind] = o->chain;
  pthread_mutex_unlock(&registry_lock);
  if (!o && !(o = calloc(1, size))) return NULL;
  /* the dispatch pointer stays: a stale handle may be read by the loader right now */
  memset((char *)o + sizeof o->dispatch, 0, size - sizeof o->dispatch);
  o->dispatch = &wcl_dispatch;
  o->kind = kind; /* so that obj_free files it right, registered or not */
  return o;
}

void obj_free(icd_obj *o) {
  o->dispatch = &wcl_dispatch;
  pthread_mutex_lock(&registry_lock);
  o->chain = released[o->kind];
  released[o->kind] = o;
  pthread_mutex_unlock(&registry_lock);
}

static unsigned bucket_of(const void *p) {
  uintptr_t x = (uintptr_t)p >> 4;
  return (unsigned)((x ^ (x >> 12)) % BUCKETS);
}

static icd_obj *find(const void *p) {
  for (icd_obj *o = buckets[bucket_of(p)]; o; o = o->chain)
    if (o == p) return o;
  return NULL;
}

static void unlink_obj(icd_obj *o) {
  icd_obj **at = &buckets[bucket_of(o)];
  while (*at != o) at = &(*at)->chain;
  *at = o->chain;
}

void obj_register(icd_obj *o, obj_kind kind, void (*destroy)(icd_obj *)) {
  o->dispatch = &wcl_dispatch;
  o->kind = kind;
  o->refs = 1, o->holds = 0;
  o->destroy = destroy;
  pthread_mutex_lock(&registry_lock);
  unsigned b = bucket_of(o);
  o->chain = buckets[b];
  buckets[b] = o;
  pthread_mutex_unlock(&registry_lock);
}

int obj_valid(const void *p, obj_kind kind) {
  if (!p) return 0;
  pthread_mutex_lock(&registry_lock);
  icd_obj *o = find(p);
  int ok = o && o->kind == kind && o->refs > 0;
  pthread_mutex_unlock(&registry_lock);
  return ok;
}

int obj_retain(void *p, obj_kind kind) {
  if (!p) return -1;
  pthread_mutex_lock(&registry_lock);
  icd_obj *o = find(p);
  int ok = o && o->kind == kind && o->refs > 0;
  if (ok) o->refs++;
  pthread_mutex_unlock(&registry_lock);
  return ok ? 0 : -1;
}

/* Takes one count off (refs when `app`), and destroys the object when none is left. */
static int put(icd_obj *o, obj_kind kind, int app) {
  pthread_mutex_lock(&registry_lock);
  int ok = find(o) == o && (!app || (o->kind == kind && o->refs > 0));
  int last = 0;
  if (ok) {
    if (app) o->refs--;
    else o->holds--;
    last = o->refs == 0 && o->holds == 0;
    if (last) unlink_obj(o);
  }
  pthread_mutex_unlock(&registry_lock);
  if (last) o->destroy(o);
  return ok ? 0 : -1;
}

int obj_release(void *p, obj_kind kind) { return p ? put(p, kind, 1) : -1; }

void obj_hold(void *p) {
  pthread_mutex_lock(&registry_lock);
  ((icd_obj *)p)->holds++;
  pthread_mutex_unlock(&registry_lock);
}

void obj_drop(void *p) {
  if (p) put(p, 0, 0);
}

cl_uint obj_refs(const void *p) {
  pthread_mutex_lock(&registry_lock);
  cl_uint n = ((const icd_obj *)p)->refs;
  pthread_mutex_unlock(&registry_lock);
  return n;
}
