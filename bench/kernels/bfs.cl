/* One level of a level-synchronous breadth-first search over a graph in CSR form: every node
 * at level `cur` gives its unvisited neighbours level cur + 1 and sets *changed. The host
 * launches it once per level until nothing changes. Two nodes may write the same neighbour's
 * level; they write the same value. */
__kernel void bfs_level(__global const uint *row, __global const uint *col, __global int *level,
                        int cur, __global int *changed) {
  uint v = get_global_id(0);
  if (level[v] != cur)
    return;
  for (uint e = row[v]; e < row[v + 1]; e++) {
    uint w = col[e];
    if (level[w] < 0) {
      level[w] = cur + 1;
      *changed = 1;
    }
  }
}
