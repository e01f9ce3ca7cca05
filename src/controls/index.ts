/** Operator controls: confirmed changes to jobs and the default provider, each audited as web.control. */
export { OperatorControls, type ControlListing, type ControlRequest } from './operator-controls.js';
export { controlCatalogue, type ControlDomains } from './catalogue.js';
export { ControlError, type ControlErrorCode } from './errors.js';
export { CONTROL_IDS, type Control, type ControlId, type ControlResult, type ControlTarget } from './types.js';
