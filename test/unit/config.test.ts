import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { maxPayloadBytes, payloadTooLarge, warnPayloadBytes } from '../../contracts';
import { devServerSafetyArgs } from '../../worker/dev-server';
import { temporalConfigFromEnv } from '../../worker/config';

describe('temporal config from env', () => {
  it('defaults to the local dev server', () => {
    expect(temporalConfigFromEnv({})).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'durable-agents' });
  });

  it('turns TLS on with an API key', () => {
    expect(temporalConfigFromEnv({ TEMPORAL_API_KEY: 'k', TEMPORAL_ADDRESS: 'x:7233' })).toMatchObject({ apiKey: 'k', tls: true, address: 'x:7233' });
  });

  it('rejects half a client certificate pair, naming both variables', () => {
    expect(() => temporalConfigFromEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c' })).toThrow(/TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/);
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
