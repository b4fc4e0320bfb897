// A spin lock taken by the work-items of one warp: the classic SIMT deadlock. The lane that
// takes the lock leaves the loop and waits where the loop reconverges, for the lanes still
// spinning, which wait for the lock it holds.
// weft-run: -g 32 -l 32 --arg i32[1]=zero --arg i32[32]=zero
__kernel void spin_lock(__global int *lock, __global int *count) {
  while (atomic_cmpxchg(lock, 0, 1) != 0)
    ;
  count[get_global_id(0)] += 1;
  atomic_xchg(lock, 0);
}
