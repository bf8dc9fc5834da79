// Workspace trust: which server commands measure (and so run the
// workspace's code), and what the user is told when one is refused.

/** Server commands that compile and run the workspace's code. */
export const MEASURING_COMMANDS: ReadonlySet<string> = new Set([
  'perfls.checkFormulas',
  'perfls.measure',
  'perfls.checkFile',
  'perfls.calibrate',
  'perfls.acceptBaseline',
  'perfls.profile',
  'perfls.compareWithBase',
]);

/** isBlocked tells whether a command must not run in a workspace of this trust. */
export function isBlocked(command: string, trusted: boolean): boolean {
  return !trusted && MEASURING_COMMANDS.has(command);
}

/** The message shown when a measuring command is refused. */
export const UNTRUSTED_MESSAGE =
  'perfls does not measure in an untrusted workspace: measuring compiles and runs this workspace\'s code. ' +
  'Trust the workspace to measure; formula errors and cached verdicts are shown either way.';
