module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %c255 = arith.constant 255 : index
    %c254 = arith.constant 254 : index
    %c253 = arith.constant 253 : index
    %cst = arith.constant dense<0.000000e+00> : vector<16xf32>
    %0 = ub.poison : f32
    %cst_0 = arith.constant dense<0.000000e+00> : vector<4x16xf32>
    %cst_1 = arith.constant dense<0.000000e+00> : vector<6x16xf32>
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c252 = arith.constant 252 : index
    %c16 = arith.constant 16 : index
    %c6 = arith.constant 6 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    scf.for %arg4 = %c0 to %c252 step %c6 {
      scf.for %arg5 = %c0 to %c256 step %c16 {
        vector.transfer_write %cst, %alloc_2[%arg4, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %c1_5 = arith.constant 1 : index
        %1 = arith.addi %arg4, %c1_5 : index
        vector.transfer_write %cst, %alloc_2[%1, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %c2 = arith.constant 2 : index
        %2 = arith.addi %arg4, %c2 : index
        vector.transfer_write %cst, %alloc_2[%2, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %c3 = arith.constant 3 : index
        %3 = arith.addi %arg4, %c3 : index
        vector.transfer_write %cst, %alloc_2[%3, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %c4_6 = arith.constant 4 : index
        %4 = arith.addi %arg4, %c4_6 : index
        vector.transfer_write %cst, %alloc_2[%4, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %c5 = arith.constant 5 : index
        %5 = arith.addi %arg4, %c5 : index
        vector.transfer_write %cst, %alloc_2[%5, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c16 {
      vector.transfer_write %cst, %alloc_2[%c252, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      vector.transfer_write %cst, %alloc_2[%c253, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      vector.transfer_write %cst, %alloc_2[%c254, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      vector.transfer_write %cst, %alloc_2[%c255, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    }
    %c0_3 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1_4 = arith.constant 1 : index
    scf.for %arg4 = %c0_3 to %c4 step %c1_4 {
      %c64_5 = arith.constant 64 : index
      %1 = arith.muli %arg4, %c64_5 overflow<nsw> : index
      %subview = memref.subview %alloc_2[0, %1] [256, 64] [1, 1] : memref<256x256xf32> to memref<256x64xf32, strided<[256, 1], offset: ?>>
      scf.for %arg5 = %c0 to %c252 step %c6 {
        scf.for %arg6 = %c0 to %c64 step %c16 {
          %2 = vector.transfer_read %subview[%arg5, %arg6], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
          %c1_6 = arith.constant 1 : index
          %3 = arith.addi %arg5, %c1_6 : index
          %4 = vector.transfer_read %subview[%3, %arg6], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
          %c2 = arith.constant 2 : index
          %5 = arith.addi %arg5, %c2 : index
          %6 = vector.transfer_read %subview[%5, %arg6], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
          %c3 = arith.constant 3 : index
          %7 = arith.addi %arg5, %c3 : index
          %8 = vector.transfer_read %subview[%7, %arg6], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
          %c4_7 = arith.constant 4 : index
          %9 = arith.addi %arg5, %c4_7 : index
          %10 = vector.transfer_read %subview[%9, %arg6], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
          %c5 = arith.constant 5 : index
          %11 = arith.addi %arg5, %c5 : index
          %12 = vector.transfer_read %subview[%11, %arg6], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
          %13:16 = vector.to_elements %2 : vector<16xf32>
          %14:16 = vector.to_elements %4 : vector<16xf32>
          %15:16 = vector.to_elements %6 : vector<16xf32>
          %16:16 = vector.to_elements %8 : vector<16xf32>
          %17:16 = vector.to_elements %10 : vector<16xf32>
          %18:16 = vector.to_elements %12 : vector<16xf32>
          %19 = vector.from_elements %13#0, %13#1, %13#2, %13#3, %13#4, %13#5, %13#6, %13#7, %13#8, %13#9, %13#10, %13#11, %13#12, %13#13, %13#14, %13#15, %14#0, %14#1, %14#2, %14#3, %14#4, %14#5, %14#6, %14#7, %14#8, %14#9, %14#10, %14#11, %14#12, %14#13, %14#14, %14#15, %15#0, %15#1, %15#2, %15#3, %15#4, %15#5, %15#6, %15#7, %15#8, %15#9, %15#10, %15#11, %15#12, %15#13, %15#14, %15#15, %16#0, %16#1, %16#2, %16#3, %16#4, %16#5, %16#6, %16#7, %16#8, %16#9, %16#10, %16#11, %16#12, %16#13, %16#14, %16#15, %17#0, %17#1, %17#2, %17#3, %17#4, %17#5, %17#6, %17#7, %17#8, %17#9, %17#10, %17#11, %17#12, %17#13, %17#14, %17#15, %18#0, %18#1, %18#2, %18#3, %18#4, %18#5, %18#6, %18#7, %18#8, %18#9, %18#10, %18#11, %18#12, %18#13, %18#14, %18#15 : vector<6x16xf32>
          %20 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %19) -> (vector<6x16xf32>) {
            %27 = vector.transfer_read %arg0[%arg5, %arg7], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
            %28 = vector.transfer_read %arg0[%3, %arg7], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
            %29 = vector.transfer_read %arg0[%5, %arg7], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
            %30 = vector.transfer_read %arg0[%7, %arg7], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
            %31 = vector.transfer_read %arg0[%9, %arg7], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
            %32 = vector.transfer_read %arg0[%11, %arg7], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
            %c64_8 = arith.constant 64 : index
            %33 = arith.muli %arg4, %c64_8 overflow<nsw> : index
            %34 = arith.addi %33, %arg6 : index
            %35 = vector.transfer_read %arg1[%arg7, %34], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
            %36 = vector.extract %27[0] : f32 from vector<1xf32>
            %37 = vector.broadcast %36 : f32 to vector<16xf32>
            %38 = vector.extract %arg8[0] : vector<16xf32> from vector<6x16xf32>
            %39 = vector.fma %37, %35, %38 : vector<16xf32>
            %40 = vector.extract %28[0] : f32 from vector<1xf32>
            %41 = vector.broadcast %40 : f32 to vector<16xf32>
            %42 = vector.extract %arg8[1] : vector<16xf32> from vector<6x16xf32>
            %43 = vector.fma %41, %35, %42 : vector<16xf32>
            %44 = vector.extract %29[0] : f32 from vector<1xf32>
            %45 = vector.broadcast %44 : f32 to vector<16xf32>
            %46 = vector.extract %arg8[2] : vector<16xf32> from vector<6x16xf32>
            %47 = vector.fma %45, %35, %46 : vector<16xf32>
            %48 = vector.extract %30[0] : f32 from vector<1xf32>
            %49 = vector.broadcast %48 : f32 to vector<16xf32>
            %50 = vector.extract %arg8[3] : vector<16xf32> from vector<6x16xf32>
            %51 = vector.fma %49, %35, %50 : vector<16xf32>
            %52 = vector.extract %31[0] : f32 from vector<1xf32>
            %53 = vector.broadcast %52 : f32 to vector<16xf32>
            %54 = vector.extract %arg8[4] : vector<16xf32> from vector<6x16xf32>
            %55 = vector.fma %53, %35, %54 : vector<16xf32>
            %56 = vector.extract %32[0] : f32 from vector<1xf32>
            %57 = vector.broadcast %56 : f32 to vector<16xf32>
            %58 = vector.extract %arg8[5] : vector<16xf32> from vector<6x16xf32>
            %59 = vector.fma %57, %35, %58 : vector<16xf32>
            %60:16 = vector.to_elements %39 : vector<16xf32>
            %61:16 = vector.to_elements %43 : vector<16xf32>
            %62:16 = vector.to_elements %47 : vector<16xf32>
            %63:16 = vector.to_elements %51 : vector<16xf32>
            %64:16 = vector.to_elements %55 : vector<16xf32>
            %65:16 = vector.to_elements %59 : vector<16xf32>
            %66 = vector.from_elements %60#0, %60#1, %60#2, %60#3, %60#4, %60#5, %60#6, %60#7, %60#8, %60#9, %60#10, %60#11, %60#12, %60#13, %60#14, %60#15, %61#0, %61#1, %61#2, %61#3, %61#4, %61#5, %61#6, %61#7, %61#8, %61#9, %61#10, %61#11, %61#12, %61#13, %61#14, %61#15, %62#0, %62#1, %62#2, %62#3, %62#4, %62#5, %62#6, %62#7, %62#8, %62#9, %62#10, %62#11, %62#12, %62#13, %62#14, %62#15, %63#0, %63#1, %63#2, %63#3, %63#4, %63#5, %63#6, %63#7, %63#8, %63#9, %63#10, %63#11, %63#12, %63#13, %63#14, %63#15, %64#0, %64#1, %64#2, %64#3, %64#4, %64#5, %64#6, %64#7, %64#8, %64#9, %64#10, %64#11, %64#12, %64#13, %64#14, %64#15, %65#0, %65#1, %65#2, %65#3, %65#4, %65#5, %65#6, %65#7, %65#8, %65#9, %65#10, %65#11, %65#12, %65#13, %65#14, %65#15 : vector<6x16xf32>
            scf.yield %66 : vector<6x16xf32>
          }
          %21 = vector.extract %20[0] : vector<16xf32> from vector<6x16xf32>
          vector.transfer_write %21, %subview[%arg5, %arg6] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
          %22 = vector.extract %20[1] : vector<16xf32> from vector<6x16xf32>
          vector.transfer_write %22, %subview[%3, %arg6] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
          %23 = vector.extract %20[2] : vector<16xf32> from vector<6x16xf32>
          vector.transfer_write %23, %subview[%5, %arg6] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
          %24 = vector.extract %20[3] : vector<16xf32> from vector<6x16xf32>
          vector.transfer_write %24, %subview[%7, %arg6] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
          %25 = vector.extract %20[4] : vector<16xf32> from vector<6x16xf32>
          vector.transfer_write %25, %subview[%9, %arg6] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
          %26 = vector.extract %20[5] : vector<16xf32> from vector<6x16xf32>
          vector.transfer_write %26, %subview[%11, %arg6] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
        }
      }
      scf.for %arg5 = %c0 to %c64 step %c16 {
        %2 = vector.transfer_read %subview[%c252, %arg5], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
        %3 = vector.transfer_read %subview[%c253, %arg5], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
        %4 = vector.transfer_read %subview[%c254, %arg5], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
        %5 = vector.transfer_read %subview[%c255, %arg5], %0 {in_bounds = [true]} : memref<256x64xf32, strided<[256, 1], offset: ?>>, vector<16xf32>
        %6:16 = vector.to_elements %2 : vector<16xf32>
        %7:16 = vector.to_elements %3 : vector<16xf32>
        %8:16 = vector.to_elements %4 : vector<16xf32>
        %9:16 = vector.to_elements %5 : vector<16xf32>
        %10 = vector.from_elements %6#0, %6#1, %6#2, %6#3, %6#4, %6#5, %6#6, %6#7, %6#8, %6#9, %6#10, %6#11, %6#12, %6#13, %6#14, %6#15, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7, %7#8, %7#9, %7#10, %7#11, %7#12, %7#13, %7#14, %7#15, %8#0, %8#1, %8#2, %8#3, %8#4, %8#5, %8#6, %8#7, %8#8, %8#9, %8#10, %8#11, %8#12, %8#13, %8#14, %8#15, %9#0, %9#1, %9#2, %9#3, %9#4, %9#5, %9#6, %9#7, %9#8, %9#9, %9#10, %9#11, %9#12, %9#13, %9#14, %9#15 : vector<4x16xf32>
        %11 = scf.for %arg6 = %c0 to %c256 step %c1 iter_args(%arg7 = %10) -> (vector<4x16xf32>) {
          %16 = vector.transfer_read %arg0[%c252, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %17 = vector.transfer_read %arg0[%c253, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %18 = vector.transfer_read %arg0[%c254, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %19 = vector.transfer_read %arg0[%c255, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %c64_6 = arith.constant 64 : index
          %20 = arith.muli %arg4, %c64_6 overflow<nsw> : index
          %21 = arith.addi %20, %arg5 : index
          %22 = vector.transfer_read %arg1[%arg6, %21], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
          %23 = vector.extract %16[0] : f32 from vector<1xf32>
          %24 = vector.broadcast %23 : f32 to vector<16xf32>
          %25 = vector.extract %arg7[0] : vector<16xf32> from vector<4x16xf32>
          %26 = vector.fma %24, %22, %25 : vector<16xf32>
          %27 = vector.extract %17[0] : f32 from vector<1xf32>
          %28 = vector.broadcast %27 : f32 to vector<16xf32>
          %29 = vector.extract %arg7[1] : vector<16xf32> from vector<4x16xf32>
          %30 = vector.fma %28, %22, %29 : vector<16xf32>
          %31 = vector.extract %18[0] : f32 from vector<1xf32>
          %32 = vector.broadcast %31 : f32 to vector<16xf32>
          %33 = vector.extract %arg7[2] : vector<16xf32> from vector<4x16xf32>
          %34 = vector.fma %32, %22, %33 : vector<16xf32>
          %35 = vector.extract %19[0] : f32 from vector<1xf32>
          %36 = vector.broadcast %35 : f32 to vector<16xf32>
          %37 = vector.extract %arg7[3] : vector<16xf32> from vector<4x16xf32>
          %38 = vector.fma %36, %22, %37 : vector<16xf32>
          %39:16 = vector.to_elements %26 : vector<16xf32>
          %40:16 = vector.to_elements %30 : vector<16xf32>
          %41:16 = vector.to_elements %34 : vector<16xf32>
          %42:16 = vector.to_elements %38 : vector<16xf32>
          %43 = vector.from_elements %39#0, %39#1, %39#2, %39#3, %39#4, %39#5, %39#6, %39#7, %39#8, %39#9, %39#10, %39#11, %39#12, %39#13, %39#14, %39#15, %40#0, %40#1, %40#2, %40#3, %40#4, %40#5, %40#6, %40#7, %40#8, %40#9, %40#10, %40#11, %40#12, %40#13, %40#14, %40#15, %41#0, %41#1, %41#2, %41#3, %41#4, %41#5, %41#6, %41#7, %41#8, %41#9, %41#10, %41#11, %41#12, %41#13, %41#14, %41#15, %42#0, %42#1, %42#2, %42#3, %42#4, %42#5, %42#6, %42#7, %42#8, %42#9, %42#10, %42#11, %42#12, %42#13, %42#14, %42#15 : vector<4x16xf32>
          scf.yield %43 : vector<4x16xf32>
        }
        %12 = vector.extract %11[0] : vector<16xf32> from vector<4x16xf32>
        vector.transfer_write %12, %subview[%c252, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
        %13 = vector.extract %11[1] : vector<16xf32> from vector<4x16xf32>
        vector.transfer_write %13, %subview[%c253, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
        %14 = vector.extract %11[2] : vector<16xf32> from vector<4x16xf32>
        vector.transfer_write %14, %subview[%c254, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
        %15 = vector.extract %11[3] : vector<16xf32> from vector<4x16xf32>
        vector.transfer_write %15, %subview[%c255, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x64xf32, strided<[256, 1], offset: ?>>
      }
    }
    scf.for %arg4 = %c0 to %c252 step %c6 {
      scf.for %arg5 = %c0 to %c256 step %c16 {
        %1 = vector.transfer_read %alloc_2[%arg4, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
        %c1_5 = arith.constant 1 : index
        %2 = arith.addi %arg4, %c1_5 : index
        %3 = vector.transfer_read %alloc_2[%2, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
        %c2 = arith.constant 2 : index
        %4 = arith.addi %arg4, %c2 : index
        %5 = vector.transfer_read %alloc_2[%4, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
        %c3 = arith.constant 3 : index
        %6 = arith.addi %arg4, %c3 : index
        %7 = vector.transfer_read %alloc_2[%6, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
        %c4_6 = arith.constant 4 : index
        %8 = arith.addi %arg4, %c4_6 : index
        %9 = vector.transfer_read %alloc_2[%8, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
        %c5 = arith.constant 5 : index
        %10 = arith.addi %arg4, %c5 : index
        %11 = vector.transfer_read %alloc_2[%10, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
        %12:16 = vector.to_elements %1 : vector<16xf32>
        %13:16 = vector.to_elements %3 : vector<16xf32>
        %14:16 = vector.to_elements %5 : vector<16xf32>
        %15:16 = vector.to_elements %7 : vector<16xf32>
        %16:16 = vector.to_elements %9 : vector<16xf32>
        %17:16 = vector.to_elements %11 : vector<16xf32>
        %18 = vector.from_elements %12#0, %12#1, %12#2, %12#3, %12#4, %12#5, %12#6, %12#7, %12#8, %12#9, %12#10, %12#11, %12#12, %12#13, %12#14, %12#15, %13#0, %13#1, %13#2, %13#3, %13#4, %13#5, %13#6, %13#7, %13#8, %13#9, %13#10, %13#11, %13#12, %13#13, %13#14, %13#15, %14#0, %14#1, %14#2, %14#3, %14#4, %14#5, %14#6, %14#7, %14#8, %14#9, %14#10, %14#11, %14#12, %14#13, %14#14, %14#15, %15#0, %15#1, %15#2, %15#3, %15#4, %15#5, %15#6, %15#7, %15#8, %15#9, %15#10, %15#11, %15#12, %15#13, %15#14, %15#15, %16#0, %16#1, %16#2, %16#3, %16#4, %16#5, %16#6, %16#7, %16#8, %16#9, %16#10, %16#11, %16#12, %16#13, %16#14, %16#15, %17#0, %17#1, %17#2, %17#3, %17#4, %17#5, %17#6, %17#7, %17#8, %17#9, %17#10, %17#11, %17#12, %17#13, %17#14, %17#15 : vector<6x16xf32>
        %19 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
        %20 = vector.broadcast %19 : vector<16xf32> to vector<6x16xf32>
        %21 = arith.addf %18, %20 : vector<6x16xf32>
        %22 = arith.maximumf %21, %cst_1 : vector<6x16xf32>
        %23 = vector.extract %22[0] : vector<16xf32> from vector<6x16xf32>
        vector.transfer_write %23, %alloc[%arg4, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %24 = vector.extract %22[1] : vector<16xf32> from vector<6x16xf32>
        vector.transfer_write %24, %alloc[%2, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %25 = vector.extract %22[2] : vector<16xf32> from vector<6x16xf32>
        vector.transfer_write %25, %alloc[%4, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %26 = vector.extract %22[3] : vector<16xf32> from vector<6x16xf32>
        vector.transfer_write %26, %alloc[%6, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %27 = vector.extract %22[4] : vector<16xf32> from vector<6x16xf32>
        vector.transfer_write %27, %alloc[%8, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
        %28 = vector.extract %22[5] : vector<16xf32> from vector<6x16xf32>
        vector.transfer_write %28, %alloc[%10, %arg5] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c16 {
      %1 = vector.transfer_read %alloc_2[%c252, %arg4], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
      %2 = vector.transfer_read %alloc_2[%c253, %arg4], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
      %3 = vector.transfer_read %alloc_2[%c254, %arg4], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
      %4 = vector.transfer_read %alloc_2[%c255, %arg4], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<16xf32>
      %5:16 = vector.to_elements %1 : vector<16xf32>
      %6:16 = vector.to_elements %2 : vector<16xf32>
      %7:16 = vector.to_elements %3 : vector<16xf32>
      %8:16 = vector.to_elements %4 : vector<16xf32>
      %9 = vector.from_elements %5#0, %5#1, %5#2, %5#3, %5#4, %5#5, %5#6, %5#7, %5#8, %5#9, %5#10, %5#11, %5#12, %5#13, %5#14, %5#15, %6#0, %6#1, %6#2, %6#3, %6#4, %6#5, %6#6, %6#7, %6#8, %6#9, %6#10, %6#11, %6#12, %6#13, %6#14, %6#15, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7, %7#8, %7#9, %7#10, %7#11, %7#12, %7#13, %7#14, %7#15, %8#0, %8#1, %8#2, %8#3, %8#4, %8#5, %8#6, %8#7, %8#8, %8#9, %8#10, %8#11, %8#12, %8#13, %8#14, %8#15 : vector<4x16xf32>
      %10 = vector.transfer_read %arg2[%arg4], %0 {in_bounds = [true]} : memref<256xf32>, vector<16xf32>
      %11 = vector.broadcast %10 : vector<16xf32> to vector<4x16xf32>
      %12 = arith.addf %9, %11 : vector<4x16xf32>
      %13 = arith.maximumf %12, %cst_0 : vector<4x16xf32>
      %14 = vector.extract %13[0] : vector<16xf32> from vector<4x16xf32>
      vector.transfer_write %14, %alloc[%c252, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      %15 = vector.extract %13[1] : vector<16xf32> from vector<4x16xf32>
      vector.transfer_write %15, %alloc[%c253, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      %16 = vector.extract %13[2] : vector<16xf32> from vector<4x16xf32>
      vector.transfer_write %16, %alloc[%c254, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
      %17 = vector.extract %13[3] : vector<16xf32> from vector<4x16xf32>
      vector.transfer_write %17, %alloc[%c255, %arg4] {in_bounds = [true]} : vector<16xf32>, memref<256x256xf32>
    }
    memref.copy %alloc, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<256x256xf32>
    memref.dealloc %alloc_2 : memref<256x256xf32>
    return
  }
}
