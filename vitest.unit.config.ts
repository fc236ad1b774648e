import tsconfigPaths from 'vite-tsconfig-paths'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [tsconfigPaths()],
  test: { include: ['tests/unit/**/*.test.{ts,tsx}'], environment: 'node' },
})
