// Swagger UI is embedded in the binary so /docs works offline (no CDN), as users may be.

import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };

export const DOCS_ASSETS: Record<string, { body: string; type: string }> = {
  "/docs/swagger-ui-bundle.js": { body: bundle, type: "text/javascript; charset=utf-8" },
  "/docs/swagger-ui.css": { body: css, type: "text/css; charset=utf-8" },
};

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>indx API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true, persistAuthorization: false });
</script>
</body>
</html>
`;
