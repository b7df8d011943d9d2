// GET/POST /api/auth/*: next-auth's own endpoints (csrf, sign-in callback, session, sign-out).
import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";

const handler = NextAuth(authOptions);

export { handler as GET, handler as POST };
