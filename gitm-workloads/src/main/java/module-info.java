/** The built-in managed workloads (hft-lob, af2, kitti), written once against the runtime facade. */
module gitm.workloads {
  requires transitive gitm.api;

  exports io.gitm.workloads.af2 to gitm.bench;
  exports io.gitm.workloads.hft to gitm.bench;
  exports io.gitm.workloads.kitti to gitm.bench;

  provides io.gitm.workload.Workload with
      io.gitm.workloads.hft.HftLobWorkload,
      io.gitm.workloads.af2.Af2Workload,
      io.gitm.workloads.kitti.KittiWorkload;

  // the tests find the workloads by name as gitm does, through ServiceLoader
  uses io.gitm.workload.Workload;
}
