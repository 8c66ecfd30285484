// Native libraries embedded with `import p from "…/vec0.so" with { type: "file" }`: a path.
declare module "*.so" {
  const path: string;
  export default path;
}
