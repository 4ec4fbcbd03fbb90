/** A stylesheet imported as its text (scripts/bundle-viewer.mjs loads `.css` files as text). */
declare module "*.css" {
  const text: string;
  export default text;
}
