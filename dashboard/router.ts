import { useEffect, useState } from 'preact/hooks';

/** A parsed hash route of the dashboard. */
export type Route =
  | { readonly view: 'runs' }
  | { readonly view: 'inbox' }
  | { readonly view: 'run'; readonly id: string }
  | { readonly view: 'sessions' }
  | { readonly view: 'session'; readonly id: string }
  | { readonly view: 'tenant'; readonly tenant: string };

/** Parses `location.hash` (`#/runs`, `#/runs/<id>`, `#/inbox`, `#/sessions`, `#/sessions/<id>`, `#/tenants/<id>`); anything else is the runs list. */
export function parseRoute(hash: string): Route {
  const [, section, id] = hash.replace(/^#/, '').split('/');
  const decoded = id ? decodeURIComponent(id) : undefined;
  if (section === 'sessions') return decoded ? { view: 'session', id: decoded } : { view: 'sessions' };
  if (section === 'inbox') return { view: 'inbox' };
  if (section === 'tenants' && decoded) return { view: 'tenant', tenant: decoded };
  return section === 'runs' && decoded ? { view: 'run', id: decoded } : { view: 'runs' };
}

/** The hash link of a route. */
export function linkTo(route: Route): string {
  switch (route.view) {
    case 'runs':
      return '#/runs';
    case 'inbox':
      return '#/inbox';
    case 'run':
      return `#/runs/${encodeURIComponent(route.id)}`;
    case 'sessions':
      return '#/sessions';
    case 'session':
      return `#/sessions/${encodeURIComponent(route.id)}`;
    case 'tenant':
      return `#/tenants/${encodeURIComponent(route.tenant)}`;
  }
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
