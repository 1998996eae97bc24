/**
 * Every `patched()` id of the workflow code, one constant each (sorted). A patch guards a
 * change to the commands a run emits: runs recorded before the change take the old branch on
 * replay. Retire a patch with `deprecatePatch(id)` once no run that predates it can be open,
 * and remove it one release later.
 */

/** 0.2.0: tool activities are typed `<agent>/<tool>` instead of `<tool>`. */
export const namespacedToolActivities = 'namespaced-tool-activities';
