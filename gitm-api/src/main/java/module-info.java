/**
 * The ground floor every module stands on: the trace schema, the device SPI and runtime facade, the workload SPI,
 * and the budget, target and ticker a run is given.
 */
module gitm.api {
  requires static transitive org.jspecify;

  exports io.gitm.api;
  exports io.gitm.device;
  exports io.gitm.trace;
  exports io.gitm.workload;

  // the records a run store, a calibration or a journal holds are read and written by Jackson
  opens io.gitm.device to tools.jackson.databind;
  opens io.gitm.trace to tools.jackson.databind;
  opens io.gitm.workload to tools.jackson.databind;

  uses io.gitm.device.DeviceProvider;
}
