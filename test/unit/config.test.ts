import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { maxPayloadBytes, payloadTooLarge, warnPayloadBytes } from '../../contracts';
import { devServerSafetyArgs } from '../../testing/dev-server';
import { connectionOptions, temporalConfigFromEnv } from '../../config/temporal';
import { testTempDir } from '../support/temp-dir';

describe('temporal config from env', () => {
  it('defaults to the local dev server', () => {
    expect(temporalConfigFromEnv({})).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'durable-agents' });
  });

  it('turns TLS on with an API key', () => {
    expect(temporalConfigFromEnv({ TEMPORAL_API_KEY: 'k', TEMPORAL_ADDRESS: 'x:7233' })).toMatchObject({ apiKey: 'k', tls: true, address: 'x:7233' });
  });

  const dir = testTempDir('config-');
  const certPath = join(dir, 'client.pem');
  const keyPath = join(dir, 'client.key');
  writeFileSync(certPath, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  writeFileSync(keyPath, '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n');

  it('rejects half a client certificate pair, naming both variables', () => {
    expect(() => temporalConfigFromEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: certPath })).toThrow(/TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/);
  });

  it('reads an mTLS pair, a server CA and a server name into the connection options', () => {
    const config = temporalConfigFromEnv({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CLIENT_CERT_PATH: certPath,
      TEMPORAL_TLS_CLIENT_KEY_PATH: keyPath,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certPath,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.example',
      TEMPORAL_GRPC_META_X_TENANT: 'blue',
    });
    expect(config.tls).toEqual({ clientCertPath: certPath, clientKeyPath: keyPath, serverCaCertPath: certPath, serverName: 'temporal.example' });
    const options = connectionOptions(config);
    expect(options.tls).toMatchObject({ serverNameOverride: 'temporal.example', clientCertPair: { crt: readFileSync(certPath), key: readFileSync(keyPath) } });
    expect(options.metadata).toEqual({ 'x-tenant': 'blue' });
  });

  it('takes PEM data instead of paths', () => {
    const pem = readFileSync(certPath, 'utf8');
    const config = temporalConfigFromEnv({ TEMPORAL_TLS_CLIENT_CERT_DATA: pem, TEMPORAL_TLS_CLIENT_KEY_DATA: readFileSync(keyPath, 'utf8') });
    expect(connectionOptions(config).tls).toMatchObject({ clientCertPair: { crt: Buffer.from(pem) } });
  });

  it.each([
    [{ TEMPORAL_ADDRESS: 'localhost' }, /TEMPORAL_ADDRESS must be host:port/],
    [{ TEMPORAL_ADDRESS: 'localhost:99999' }, /TEMPORAL_ADDRESS must be host:port/],
    [{ TEMPORAL_TLS: 'yes' }, /TEMPORAL_TLS must be true or false/],
    [{ TEMPORAL_NAMESPACE: 'my ns' }, /TEMPORAL_NAMESPACE must not contain whitespace/],
    [{ TEMPORAL_TLS_CLIENT_CERT_PATH: '/nowhere/cert.pem', TEMPORAL_TLS_CLIENT_KEY_PATH: '/nowhere/key.pem' }, /TEMPORAL_TLS_CLIENT_CERT_PATH names a file that does not exist; TEMPORAL_TLS_CLIENT_KEY_PATH names a file/],
    [{ TEMPORAL_TLS_CLIENT_CERT_DATA: 'not a pem' }, /TEMPORAL_TLS_CLIENT_CERT_DATA must be a PEM certificate/],
    [{ TEMPORAL_CONFIG_FILE: '/nowhere/temporal.toml' }, /TEMPORAL_CONFIG_FILE names a file that does not exist/],
  ])('refuses %j with an error naming the variable', (env, message) => {
    expect(() => temporalConfigFromEnv(env)).toThrow(message);
  });

  it('never echoes a secret in its errors', () => {
    expect(() => temporalConfigFromEnv({ TEMPORAL_TLS_CLIENT_KEY_DATA: 'secret-key-material' })).toThrow(/^(?!.*secret-key-material)/s);
  });

  it('loads a profile of the Temporal config file, with variables taking precedence', () => {
    const file = join(dir, 'temporal.toml');
    writeFileSync(file, ['[profile.prod]', 'address = "prod.tmprl.cloud:7233"', 'namespace = "prod.a1b2c"', 'api_key = "k-prod"', ''].join('\n'));
    const config = temporalConfigFromEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'override.a1b2c' });
    expect(config).toMatchObject({ address: 'prod.tmprl.cloud:7233', namespace: 'override.a1b2c', apiKey: 'k-prod', tls: true });
    expect(() => temporalConfigFromEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' })).toThrow(/TEMPORAL_CONFIG_FILE .*Profile 'staging' not found/);
  });
});

describe('transfer queue poll limit', () => {
  it('every server we launch or ship lifts it, with a JSON value the CLI accepts', () => {
    expect(devServerSafetyArgs.join(' ')).toContain('--dynamic-config-value history.transferProcessorMaxPollRPS=10000');
    const compose = readFileSync(join(__dirname, '../../deploy/temporal/dynamicconfig.yaml'), 'utf8');
    expect(compose).toMatch(/history\.transferProcessorMaxPollRPS:\s+- value: 10000\b/);
  });
});

describe('payload size limit', () => {
  it('every server we launch or ship gets the same limit as the client check', () => {
    expect(devServerSafetyArgs.join(' ')).toContain(`limit.blobSize.error=${maxPayloadBytes} --dynamic-config-value limit.blobSize.warn=${warnPayloadBytes}`);
    const compose = readFileSync(join(__dirname, '../../deploy/temporal/dynamicconfig.yaml'), 'utf8');
    expect(compose).toMatch(new RegExp(`limit\\.blobSize\\.error:\\s+- value: ${maxPayloadBytes}\\b`));
    expect(compose).toMatch(new RegExp(`limit\\.blobSize\\.warn:\\s+- value: ${warnPayloadBytes}\\b`));
    expect(compose).toMatch(new RegExp(`history\\.maxInFlightUpdatePayloads:\\s+- value: ${maxPayloadBytes}\\b`));
    expect(devServerSafetyArgs.join(' ')).toContain(`history.maxInFlightUpdatePayloads=${maxPayloadBytes}`);
  });

  it('names the limit and the actual size of a payload above it, and passes one at the limit', () => {
    expect(payloadTooLarge('the x signal', 'a'.repeat(maxPayloadBytes - 2))).toBeUndefined();
    expect(payloadTooLarge('the x signal', 'a'.repeat(maxPayloadBytes - 1))).toBe(
      'the x signal is 524289 bytes of JSON; the limit is 524288 bytes (512 KiB) per payload',
    );
  });
});
