#map = affine_map<()[s0] -> (s0 * 8)>
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
    gpu.launch_func  @matmul_bias_relu_kernel::@matmul_bias_relu_kernel blocks in (%c8, %c8, %c1) threads in (%c8, %c8, %c1)  args(%alloc : memref<64x64xf32>, %arg0 : memref<64x64xf32>, %arg1 : memref<64x64xf32>)
    gpu.launch_func  @matmul_bias_relu_kernel_0::@matmul_bias_relu_kernel blocks in (%c8, %c8, %c1) threads in (%c8, %c8, %c1)  args(%alloc : memref<64x64xf32>, %arg2 : memref<64xf32>, %arg3 : memref<64x64xf32>)
    memref.dealloc %alloc : memref<64x64xf32>
    return
  }
  gpu.module @matmul_bias_relu_kernel {
    gpu.func @matmul_bias_relu_kernel(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>} {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = affine.apply #map()[%block_id_y]
      %1 = affine.apply #map()[%block_id_x]
      %2 = arith.addi %thread_id_y, %0 : index
      %3 = arith.addi %thread_id_x, %1 : index
      memref.store %cst, %arg0[%2, %3] : memref<64x64xf32>
      scf.for %arg3 = %c0 to %c64 step %c1 {
        %4 = memref.load %arg1[%2, %arg3] : memref<64x64xf32>
        %5 = memref.load %arg2[%arg3, %3] : memref<64x64xf32>
        %6 = memref.load %arg0[%2, %3] : memref<64x64xf32>
        %7 = arith.mulf %4, %5 : f32
        %8 = arith.addf %6, %7 : f32
        memref.store %8, %arg0[%2, %3] : memref<64x64xf32>
      }
      gpu.return
    }
  }
  gpu.module @matmul_bias_relu_kernel_0 {
    gpu.func @matmul_bias_relu_kernel(%arg0: memref<64x64xf32>, %arg1: memref<64xf32>, %arg2: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>} {
      %cst = arith.constant 0.000000e+00 : f32
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = affine.apply #map()[%block_id_y]
      %1 = affine.apply #map()[%block_id_x]
      %2 = arith.addi %thread_id_y, %0 : index
      %3 = arith.addi %thread_id_x, %1 : index
      %4 = memref.load %arg0[%2, %3] : memref<64x64xf32>
      %5 = memref.load %arg1[%3] : memref<64xf32>
      %6 = arith.addf %4, %5 : f32
      %7 = arith.maximumf %6, %cst : f32
      memref.store %7, %arg2[%2, %3] : memref<64x64xf32>
      gpu.return
    }
  }
}
