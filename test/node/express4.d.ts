// Express 4, installed under the alias `express4` so the middleware is tested on both majors.
// Its own types are not installed; the test uses it through Express 5's types (the parts it
// touches, `use`, `get`, `listen`, `res.json`, `res.locals`, are the same).
declare module 'express4' {
  const createApplication: () => unknown;
  export default createApplication;
}
