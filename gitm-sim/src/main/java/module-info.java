/** The simulated device: a discrete-event GPU model with fault injection (backend "sim"). */
module gitm.sim {
  requires transitive gitm.api;

  exports io.gitm.sim to gitm.analysis, gitm.levers, gitm.engine, gitm.cli, gitm.bench;

  provides io.gitm.device.DeviceProvider with io.gitm.sim.SimDeviceProvider;
}
