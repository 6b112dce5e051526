import { definePlugin } from "../../core/index.js";
export default definePlugin({ name: "tools" });
