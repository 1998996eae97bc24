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
