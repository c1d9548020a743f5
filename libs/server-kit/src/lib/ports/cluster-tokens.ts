/** Nest's handles on the deployment's shared pieces (ClusterModule). */
export const CLUSTER_BUS = Symbol('CLUSTER_BUS');
export const RUN_SLOTS = Symbol('RUN_SLOTS');
export const CONFIRMATION_EXCHANGE = Symbol('CONFIRMATION_EXCHANGE');
export const RUNNER_LIVENESS = Symbol('RUNNER_LIVENESS');
