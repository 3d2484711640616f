module {
  llvm.func @free(!llvm.ptr)
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @matmul_bias_relu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64, %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: i64, %arg17: i64, %arg18: i64, %arg19: !llvm.ptr, %arg20: !llvm.ptr, %arg21: i64, %arg22: i64, %arg23: i64, %arg24: i64, %arg25: i64) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.insertvalue %arg19, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %2 = llvm.insertvalue %arg20, %1[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %3 = llvm.insertvalue %arg21, %2[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %4 = llvm.insertvalue %arg22, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %5 = llvm.insertvalue %arg24, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %6 = llvm.insertvalue %arg23, %5[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %7 = llvm.insertvalue %arg25, %6[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %9 = llvm.insertvalue %arg14, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg15, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg16, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.insertvalue %arg17, %11[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %13 = llvm.insertvalue %arg18, %12[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %14 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %15 = llvm.insertvalue %arg7, %14[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %arg8, %15[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %arg9, %16[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %arg10, %17[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = llvm.insertvalue %arg12, %18[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %20 = llvm.insertvalue %arg11, %19[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %21 = llvm.insertvalue %arg13, %20[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %22 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %23 = llvm.insertvalue %arg0, %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.insertvalue %arg1, %23[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.insertvalue %arg2, %24[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %26 = llvm.insertvalue %arg3, %25[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.insertvalue %arg5, %26[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.insertvalue %arg4, %27[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.insertvalue %arg6, %28[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %30 = llvm.mlir.constant(3 : index) : i64
    %31 = llvm.mlir.constant(2 : index) : i64
    %32 = llvm.mlir.constant(4 : index) : i64
    %33 = llvm.mlir.constant(1 : index) : i64
    %34 = llvm.mlir.constant(256 : index) : i64
    %35 = llvm.mlir.constant(0 : index) : i64
    %36 = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %37 = llvm.mlir.constant(256 : index) : i64
    %38 = llvm.mlir.constant(256 : index) : i64
    %39 = llvm.mlir.constant(1 : index) : i64
    %40 = llvm.mlir.constant(65536 : index) : i64
    %41 = llvm.mlir.zero : !llvm.ptr
    %42 = llvm.getelementptr %41[%40] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %43 = llvm.ptrtoint %42 : !llvm.ptr to i64
    %44 = llvm.mlir.constant(64 : index) : i64
    %45 = llvm.add %43, %44 : i64
    %46 = llvm.call @malloc(%45) : (i64) -> !llvm.ptr
    %47 = llvm.ptrtoint %46 : !llvm.ptr to i64
    %48 = llvm.mlir.constant(1 : index) : i64
    %49 = llvm.sub %44, %48 : i64
    %50 = llvm.add %47, %49 : i64
    %51 = llvm.urem %50, %44 : i64
    %52 = llvm.sub %50, %51 : i64
    %53 = llvm.inttoptr %52 : i64 to !llvm.ptr
    %54 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %55 = llvm.insertvalue %46, %54[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %56 = llvm.insertvalue %53, %55[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %57 = llvm.mlir.constant(0 : index) : i64
    %58 = llvm.insertvalue %57, %56[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %59 = llvm.insertvalue %37, %58[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %60 = llvm.insertvalue %38, %59[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %61 = llvm.insertvalue %38, %60[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %62 = llvm.insertvalue %39, %61[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.br ^bb1(%35 : i64)
  ^bb1(%63: i64):  // 2 preds: ^bb0, ^bb5
    %64 = llvm.icmp "slt" %63, %34 : i64
    llvm.cond_br %64, ^bb2, ^bb6
  ^bb2:  // pred: ^bb1
    llvm.br ^bb3(%35 : i64)
  ^bb3(%65: i64):  // 2 preds: ^bb2, ^bb4
    %66 = llvm.icmp "slt" %65, %34 : i64
    llvm.cond_br %66, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    %67 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %68 = llvm.mlir.constant(256 : index) : i64
    %69 = llvm.mul %63, %68 overflow<nsw, nuw> : i64
    %70 = llvm.add %69, %65 overflow<nsw, nuw> : i64
    %71 = llvm.getelementptr inbounds|nuw %67[%70] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %36, %71 : f32, !llvm.ptr
    %72 = llvm.add %65, %33 : i64
    %73 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %74 = llvm.mlir.constant(256 : index) : i64
    %75 = llvm.mul %63, %74 overflow<nsw, nuw> : i64
    %76 = llvm.add %75, %72 overflow<nsw, nuw> : i64
    %77 = llvm.getelementptr inbounds|nuw %73[%76] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %36, %77 : f32, !llvm.ptr
    %78 = llvm.add %65, %31 : i64
    %79 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %80 = llvm.mlir.constant(256 : index) : i64
    %81 = llvm.mul %63, %80 overflow<nsw, nuw> : i64
    %82 = llvm.add %81, %78 overflow<nsw, nuw> : i64
    %83 = llvm.getelementptr inbounds|nuw %79[%82] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %36, %83 : f32, !llvm.ptr
    %84 = llvm.add %65, %30 : i64
    %85 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %86 = llvm.mlir.constant(256 : index) : i64
    %87 = llvm.mul %63, %86 overflow<nsw, nuw> : i64
    %88 = llvm.add %87, %84 overflow<nsw, nuw> : i64
    %89 = llvm.getelementptr inbounds|nuw %85[%88] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %36, %89 : f32, !llvm.ptr
    %90 = llvm.add %65, %32 : i64
    llvm.br ^bb3(%90 : i64)
  ^bb5:  // pred: ^bb3
    %91 = llvm.add %63, %33 : i64
    llvm.br ^bb1(%91 : i64)
  ^bb6:  // pred: ^bb1
    llvm.br ^bb7(%35 : i64)
  ^bb7(%92: i64):  // 2 preds: ^bb6, ^bb14
    %93 = llvm.icmp "slt" %92, %34 : i64
    llvm.cond_br %93, ^bb8, ^bb15
  ^bb8:  // pred: ^bb7
    llvm.br ^bb9(%35 : i64)
  ^bb9(%94: i64):  // 2 preds: ^bb8, ^bb13
    %95 = llvm.icmp "slt" %94, %34 : i64
    llvm.cond_br %95, ^bb10, ^bb14
  ^bb10:  // pred: ^bb9
    llvm.br ^bb11(%35 : i64)
  ^bb11(%96: i64):  // 2 preds: ^bb10, ^bb12
    %97 = llvm.icmp "slt" %96, %34 : i64
    llvm.cond_br %97, ^bb12, ^bb13
  ^bb12:  // pred: ^bb11
    %98 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %99 = llvm.mlir.constant(256 : index) : i64
    %100 = llvm.mul %92, %99 overflow<nsw, nuw> : i64
    %101 = llvm.add %100, %96 overflow<nsw, nuw> : i64
    %102 = llvm.getelementptr inbounds|nuw %98[%101] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %103 = llvm.load %102 : !llvm.ptr -> f32
    %104 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %105 = llvm.mlir.constant(256 : index) : i64
    %106 = llvm.mul %96, %105 overflow<nsw, nuw> : i64
    %107 = llvm.add %106, %94 overflow<nsw, nuw> : i64
    %108 = llvm.getelementptr inbounds|nuw %104[%107] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %109 = llvm.load %108 : !llvm.ptr -> f32
    %110 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %111 = llvm.mlir.constant(256 : index) : i64
    %112 = llvm.mul %92, %111 overflow<nsw, nuw> : i64
    %113 = llvm.add %112, %94 overflow<nsw, nuw> : i64
    %114 = llvm.getelementptr inbounds|nuw %110[%113] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %115 = llvm.load %114 : !llvm.ptr -> f32
    %116 = llvm.fmul %103, %109 : f32
    %117 = llvm.fadd %115, %116 : f32
    %118 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %119 = llvm.mlir.constant(256 : index) : i64
    %120 = llvm.mul %92, %119 overflow<nsw, nuw> : i64
    %121 = llvm.add %120, %94 overflow<nsw, nuw> : i64
    %122 = llvm.getelementptr inbounds|nuw %118[%121] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %117, %122 : f32, !llvm.ptr
    %123 = llvm.add %96, %33 : i64
    %124 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %125 = llvm.mlir.constant(256 : index) : i64
    %126 = llvm.mul %92, %125 overflow<nsw, nuw> : i64
    %127 = llvm.add %126, %123 overflow<nsw, nuw> : i64
    %128 = llvm.getelementptr inbounds|nuw %124[%127] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %129 = llvm.load %128 : !llvm.ptr -> f32
    %130 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %131 = llvm.mlir.constant(256 : index) : i64
    %132 = llvm.mul %123, %131 overflow<nsw, nuw> : i64
    %133 = llvm.add %132, %94 overflow<nsw, nuw> : i64
    %134 = llvm.getelementptr inbounds|nuw %130[%133] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %135 = llvm.load %134 : !llvm.ptr -> f32
    %136 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %137 = llvm.mlir.constant(256 : index) : i64
    %138 = llvm.mul %92, %137 overflow<nsw, nuw> : i64
    %139 = llvm.add %138, %94 overflow<nsw, nuw> : i64
    %140 = llvm.getelementptr inbounds|nuw %136[%139] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %141 = llvm.load %140 : !llvm.ptr -> f32
    %142 = llvm.fmul %129, %135 : f32
    %143 = llvm.fadd %141, %142 : f32
    %144 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %145 = llvm.mlir.constant(256 : index) : i64
    %146 = llvm.mul %92, %145 overflow<nsw, nuw> : i64
    %147 = llvm.add %146, %94 overflow<nsw, nuw> : i64
    %148 = llvm.getelementptr inbounds|nuw %144[%147] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %143, %148 : f32, !llvm.ptr
    %149 = llvm.add %96, %31 : i64
    %150 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %151 = llvm.mlir.constant(256 : index) : i64
    %152 = llvm.mul %92, %151 overflow<nsw, nuw> : i64
    %153 = llvm.add %152, %149 overflow<nsw, nuw> : i64
    %154 = llvm.getelementptr inbounds|nuw %150[%153] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %155 = llvm.load %154 : !llvm.ptr -> f32
    %156 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %157 = llvm.mlir.constant(256 : index) : i64
    %158 = llvm.mul %149, %157 overflow<nsw, nuw> : i64
    %159 = llvm.add %158, %94 overflow<nsw, nuw> : i64
    %160 = llvm.getelementptr inbounds|nuw %156[%159] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %161 = llvm.load %160 : !llvm.ptr -> f32
    %162 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %163 = llvm.mlir.constant(256 : index) : i64
    %164 = llvm.mul %92, %163 overflow<nsw, nuw> : i64
    %165 = llvm.add %164, %94 overflow<nsw, nuw> : i64
    %166 = llvm.getelementptr inbounds|nuw %162[%165] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %167 = llvm.load %166 : !llvm.ptr -> f32
    %168 = llvm.fmul %155, %161 : f32
    %169 = llvm.fadd %167, %168 : f32
    %170 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %171 = llvm.mlir.constant(256 : index) : i64
    %172 = llvm.mul %92, %171 overflow<nsw, nuw> : i64
    %173 = llvm.add %172, %94 overflow<nsw, nuw> : i64
    %174 = llvm.getelementptr inbounds|nuw %170[%173] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %169, %174 : f32, !llvm.ptr
    %175 = llvm.add %96, %30 : i64
    %176 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %177 = llvm.mlir.constant(256 : index) : i64
    %178 = llvm.mul %92, %177 overflow<nsw, nuw> : i64
    %179 = llvm.add %178, %175 overflow<nsw, nuw> : i64
    %180 = llvm.getelementptr inbounds|nuw %176[%179] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %181 = llvm.load %180 : !llvm.ptr -> f32
    %182 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %183 = llvm.mlir.constant(256 : index) : i64
    %184 = llvm.mul %175, %183 overflow<nsw, nuw> : i64
    %185 = llvm.add %184, %94 overflow<nsw, nuw> : i64
    %186 = llvm.getelementptr inbounds|nuw %182[%185] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %187 = llvm.load %186 : !llvm.ptr -> f32
    %188 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %189 = llvm.mlir.constant(256 : index) : i64
    %190 = llvm.mul %92, %189 overflow<nsw, nuw> : i64
    %191 = llvm.add %190, %94 overflow<nsw, nuw> : i64
    %192 = llvm.getelementptr inbounds|nuw %188[%191] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %193 = llvm.load %192 : !llvm.ptr -> f32
    %194 = llvm.fmul %181, %187 : f32
    %195 = llvm.fadd %193, %194 : f32
    %196 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %197 = llvm.mlir.constant(256 : index) : i64
    %198 = llvm.mul %92, %197 overflow<nsw, nuw> : i64
    %199 = llvm.add %198, %94 overflow<nsw, nuw> : i64
    %200 = llvm.getelementptr inbounds|nuw %196[%199] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %195, %200 : f32, !llvm.ptr
    %201 = llvm.add %96, %32 : i64
    llvm.br ^bb11(%201 : i64)
  ^bb13:  // pred: ^bb11
    %202 = llvm.add %94, %33 : i64
    llvm.br ^bb9(%202 : i64)
  ^bb14:  // pred: ^bb9
    %203 = llvm.add %92, %33 : i64
    llvm.br ^bb7(%203 : i64)
  ^bb15:  // pred: ^bb7
    llvm.br ^bb16(%35 : i64)
  ^bb16(%204: i64):  // 2 preds: ^bb15, ^bb20
    %205 = llvm.icmp "slt" %204, %34 : i64
    llvm.cond_br %205, ^bb17, ^bb21
  ^bb17:  // pred: ^bb16
    llvm.br ^bb18(%35 : i64)
  ^bb18(%206: i64):  // 2 preds: ^bb17, ^bb19
    %207 = llvm.icmp "slt" %206, %34 : i64
    llvm.cond_br %207, ^bb19, ^bb20
  ^bb19:  // pred: ^bb18
    %208 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %209 = llvm.mlir.constant(256 : index) : i64
    %210 = llvm.mul %204, %209 overflow<nsw, nuw> : i64
    %211 = llvm.add %210, %206 overflow<nsw, nuw> : i64
    %212 = llvm.getelementptr inbounds|nuw %208[%211] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %213 = llvm.load %212 : !llvm.ptr -> f32
    %214 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %215 = llvm.getelementptr inbounds|nuw %214[%206] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %216 = llvm.load %215 : !llvm.ptr -> f32
    %217 = llvm.fadd %213, %216 : f32
    %218 = llvm.intr.maximum(%217, %36) : (f32, f32) -> f32
    %219 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %220 = llvm.mlir.constant(256 : index) : i64
    %221 = llvm.mul %204, %220 overflow<nsw, nuw> : i64
    %222 = llvm.add %221, %206 overflow<nsw, nuw> : i64
    %223 = llvm.getelementptr inbounds|nuw %219[%222] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %218, %223 : f32, !llvm.ptr
    %224 = llvm.add %206, %33 : i64
    %225 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %226 = llvm.mlir.constant(256 : index) : i64
    %227 = llvm.mul %204, %226 overflow<nsw, nuw> : i64
    %228 = llvm.add %227, %224 overflow<nsw, nuw> : i64
    %229 = llvm.getelementptr inbounds|nuw %225[%228] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %230 = llvm.load %229 : !llvm.ptr -> f32
    %231 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %232 = llvm.getelementptr inbounds|nuw %231[%224] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %233 = llvm.load %232 : !llvm.ptr -> f32
    %234 = llvm.fadd %230, %233 : f32
    %235 = llvm.intr.maximum(%234, %36) : (f32, f32) -> f32
    %236 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %237 = llvm.mlir.constant(256 : index) : i64
    %238 = llvm.mul %204, %237 overflow<nsw, nuw> : i64
    %239 = llvm.add %238, %224 overflow<nsw, nuw> : i64
    %240 = llvm.getelementptr inbounds|nuw %236[%239] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %235, %240 : f32, !llvm.ptr
    %241 = llvm.add %206, %31 : i64
    %242 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %243 = llvm.mlir.constant(256 : index) : i64
    %244 = llvm.mul %204, %243 overflow<nsw, nuw> : i64
    %245 = llvm.add %244, %241 overflow<nsw, nuw> : i64
    %246 = llvm.getelementptr inbounds|nuw %242[%245] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %247 = llvm.load %246 : !llvm.ptr -> f32
    %248 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %249 = llvm.getelementptr inbounds|nuw %248[%241] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %250 = llvm.load %249 : !llvm.ptr -> f32
    %251 = llvm.fadd %247, %250 : f32
    %252 = llvm.intr.maximum(%251, %36) : (f32, f32) -> f32
    %253 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %254 = llvm.mlir.constant(256 : index) : i64
    %255 = llvm.mul %204, %254 overflow<nsw, nuw> : i64
    %256 = llvm.add %255, %241 overflow<nsw, nuw> : i64
    %257 = llvm.getelementptr inbounds|nuw %253[%256] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %252, %257 : f32, !llvm.ptr
    %258 = llvm.add %206, %30 : i64
    %259 = llvm.extractvalue %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %260 = llvm.mlir.constant(256 : index) : i64
    %261 = llvm.mul %204, %260 overflow<nsw, nuw> : i64
    %262 = llvm.add %261, %258 overflow<nsw, nuw> : i64
    %263 = llvm.getelementptr inbounds|nuw %259[%262] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %264 = llvm.load %263 : !llvm.ptr -> f32
    %265 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %266 = llvm.getelementptr inbounds|nuw %265[%258] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %267 = llvm.load %266 : !llvm.ptr -> f32
    %268 = llvm.fadd %264, %267 : f32
    %269 = llvm.intr.maximum(%268, %36) : (f32, f32) -> f32
    %270 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %271 = llvm.mlir.constant(256 : index) : i64
    %272 = llvm.mul %204, %271 overflow<nsw, nuw> : i64
    %273 = llvm.add %272, %258 overflow<nsw, nuw> : i64
    %274 = llvm.getelementptr inbounds|nuw %270[%273] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %269, %274 : f32, !llvm.ptr
    %275 = llvm.add %206, %32 : i64
    llvm.br ^bb18(%275 : i64)
  ^bb20:  // pred: ^bb18
    %276 = llvm.add %204, %33 : i64
    llvm.br ^bb16(%276 : i64)
  ^bb21:  // pred: ^bb16
    %277 = llvm.extractvalue %62[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @free(%277) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @_mlir_ciface_matmul_bias_relu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = llvm.load %arg0 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.extractvalue %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %2 = llvm.extractvalue %0[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %3 = llvm.extractvalue %0[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %4 = llvm.extractvalue %0[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %5 = llvm.extractvalue %0[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %6 = llvm.extractvalue %0[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %7 = llvm.extractvalue %0[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %9 = llvm.extractvalue %8[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %10 = llvm.extractvalue %8[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %11 = llvm.extractvalue %8[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %12 = llvm.extractvalue %8[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.extractvalue %8[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.extractvalue %8[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.extractvalue %8[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.load %arg2 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %17 = llvm.extractvalue %16[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %18 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %19 = llvm.extractvalue %16[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %20 = llvm.extractvalue %16[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %21 = llvm.extractvalue %16[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %22 = llvm.load %arg3 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %23 = llvm.extractvalue %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.extractvalue %22[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.extractvalue %22[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %26 = llvm.extractvalue %22[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.extractvalue %22[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.extractvalue %22[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.extractvalue %22[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @matmul_bias_relu(%1, %2, %3, %4, %5, %6, %7, %9, %10, %11, %12, %13, %14, %15, %17, %18, %19, %20, %21, %23, %24, %25, %26, %27, %28, %29) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    llvm.return
  }
}
