-- A grant belongs to the tunnel it was given for (API.md section 13a), not only to its /mcp URL:
-- deleting the tunnel or making it public revokes its grants by this id, and a tunnel created
-- later at the same URL (another id) finds none.
ALTER TABLE "oauth_models" ADD COLUMN "tunnel_id" TEXT;
CREATE INDEX "oauth_models_tunnel_id_idx" ON "oauth_models"("tunnel_id");
