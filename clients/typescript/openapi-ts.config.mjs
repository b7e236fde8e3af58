// @hey-api/openapi-ts's settings for src/generated. ../generate.sh runs it (with the input and
// output given on its command line); nothing here is read at run time.
export default {
  input: '../../docs/openapi.json',
  output: {
    path: 'src/generated',
    // Node's ES modules need the extension in relative imports.
    importFileExtension: '.js',
    postProcess: [],
  },
  plugins: [
    // Errors are thrown (the API's flat JSON error), so `data` is never undefined.
    { name: '@hey-api/client-fetch', throwOnError: true },
    '@hey-api/typescript',
    '@hey-api/sdk',
  ],
};
